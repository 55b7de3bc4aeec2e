// ferry files ls | put | get | rm
import { basename, join } from 'node:path';
import { type DeletedFiles, type FileDto, type FilePage, formatBytes } from '@ferry/contract';
import type { Command } from 'commander';
import { type CliIo, contextOf, table } from './context.js';
import { CliError, EXIT } from './exit-codes.js';
import { createProgressBar } from './progress.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function addFilesCommand(program: Command, io: CliIo): void {
  const files = program.command('files').description('My Files: list, upload, download, delete');

  files
    .command('ls')
    .description('list files (latest version of each name)')
    .option('-q, --query <text>', 'only names containing this')
    .option('--sort <field>', 'name | created | size', 'name')
    .option('--desc', 'descending order')
    .option('--all-versions', 'every version')
    .option('--limit <n>', 'at most this many', '100')
    .option('--offset <n>', 'skip this many first (the next page)', '0')
    .action(
      async (
        opts: {
          query?: string;
          sort: string;
          desc?: boolean;
          allVersions?: boolean;
          limit: string;
          offset: string;
        },
        command: Command,
      ) => {
        const ctx = contextOf(command, io);
        const query = new URLSearchParams({
          sort: opts.sort,
          order: opts.desc ? 'desc' : 'asc',
          limit: opts.limit,
          offset: opts.offset,
        });
        if (opts.query) query.set('q', opts.query);
        if (opts.allVersions) query.set('allVersions', 'true');
        const result = await ctx.client.json<FilePage>('GET', `/api/files?${query}`);
        if (ctx.options.json) return ctx.printJson(result);
        if (result.items.length === 0) return ctx.note('No files.');
        const rows = result.items.map((f) => [
          f.id,
          formatBytes(f.size),
          `v${f.version}`,
          f.createdAt.slice(0, 19).replace('T', ' '),
          `${f.name}${f.temporary ? ' (session)' : ''}`,
        ]);
        for (const line of table([['ID', 'SIZE', 'VER', 'CREATED', 'NAME'], ...rows])) ctx.print(line);
        const offset = Number(opts.offset) || 0;
        if (result.total > result.items.length)
          ctx.note(
            `${offset + 1}–${offset + result.items.length} of ${result.total} shown (next: --offset ${offset + result.items.length})`,
          );
      },
    );

  files
    .command('put')
    .description('upload files')
    .argument('<paths...>', 'files to upload')
    .option('--name <name>', 'store under this name (one file only)')
    .option('--temporary', 'session-only: deleted when the session ends')
    .action(async (paths: string[], opts: { name?: string; temporary?: boolean }, command: Command) => {
      const ctx = contextOf(command, io);
      if (opts.name && paths.length > 1) throw new CliError('--name works with one file only', EXIT.usage);
      const stored: FileDto[] = [];
      const failed: { path: string; error: string; code?: string; exitCode: number }[] = [];
      let unreachable: CliError | undefined;
      // Every file gets its own outcome: one refused (too large, quota, bad name) or missing file
      // must not keep the others from being uploaded.
      for (const path of paths) {
        if (unreachable) {
          // Nothing more can succeed; say so per file instead of dialling a dead server again.
          failed.push({ path, error: 'not uploaded: Ferry is not reachable', exitCode: EXIT.unreachable });
          ctx.note(`error: ${path}: not uploaded: Ferry is not reachable`);
          continue;
        }
        const bar = createProgressBar(`uploading ${basename(path)}`, io.stderr);
        try {
          const file = await ctx.client.upload(path, {
            ...(opts.name ? { name: opts.name } : {}),
            ...(opts.temporary ? { query: 'temporary=true' } : {}),
            onProgress: (done, total) => bar.update(done, total),
          });
          bar.stop();
          stored.push(file);
          if (!ctx.options.json)
            ctx.print(`${file.id}  ${file.name} (v${file.version}, ${formatBytes(file.size)})`);
        } catch (error) {
          bar.stop();
          const cliError = error instanceof CliError ? error : undefined;
          const exitCode = cliError?.exitCode ?? EXIT.toolFailed;
          if (exitCode === EXIT.unreachable) unreachable = cliError;
          failed.push({
            path,
            error: (error as Error).message,
            ...(cliError?.api?.code ? { code: cliError.api.code } : {}),
            exitCode,
          });
          ctx.note(`error: ${path}: ${(error as Error).message}`);
        }
      }
      if (ctx.options.json) ctx.printJson({ files: stored, failed });
      if (failed.length > 0) {
        if (paths.length > 1)
          ctx.note(`${stored.length} of ${paths.length} files uploaded, ${failed.length} failed`);
        // The first failure decides, so `ferry files put big.bin` exits as it always did (4, 2…).
        process.exitCode = failed[0]?.exitCode ?? EXIT.toolFailed;
      }
    });

  files
    .command('get')
    .description('download a file by id or name')
    .argument('<file>', 'id or name')
    .option('-o, --output <path>', 'where to write (a directory, a path, or - for stdout)')
    .action(async (ref: string, opts: { output?: string }, command: Command) => {
      const ctx = contextOf(command, io);
      const file = await resolveFile(ctx.client, ref);
      const toStdout = opts.output === '-';
      const target = toStdout ? io.stdout : await outputPath(opts.output, file.name);
      const bar = createProgressBar(`downloading ${file.name}`, io.stderr);
      const bytes = await ctx.client.download(
        `/api/files/${file.id}/content?download=true`,
        target,
        (done, total) => bar.update(done, total),
      );
      bar.stop();
      if (ctx.options.json && !toStdout) ctx.printJson({ id: file.id, name: file.name, path: target, bytes });
      else if (!toStdout) ctx.note(`saved ${target} (${formatBytes(bytes)})`);
    });

  files
    .command('rm')
    .description('delete files by id or name')
    .argument('<files...>', 'ids or names')
    .option('--all-versions', 'every version of the name')
    .action(async (refs: string[], opts: { allVersions?: boolean }, command: Command) => {
      const ctx = contextOf(command, io);
      let deleted = 0;
      for (const ref of refs) {
        const file = await resolveFile(ctx.client, ref);
        const result = await ctx.client.json<DeletedFiles>(
          'DELETE',
          `/api/files/${file.id}${opts.allVersions ? '?allVersions=true' : ''}`,
        );
        deleted += result.deleted;
        if (!ctx.options.json)
          ctx.note(`deleted ${file.name}${result.deleted > 1 ? ` (${result.deleted} versions)` : ''}`);
      }
      if (ctx.options.json) ctx.printJson({ deleted });
    });
}

/** An id, or the latest version of an exact name. */
export async function resolveFile(
  client: ReturnType<typeof contextOf>['client'],
  ref: string,
): Promise<FileDto> {
  if (UUID.test(ref)) return client.json<FileDto>('GET', `/api/files/${ref}`);
  const result = await client.json<FilePage>('GET', `/api/files?q=${encodeURIComponent(ref)}&limit=1000`);
  const match = result.items.find((file) => file.name === ref);
  if (!match) throw new CliError(`No file named ${JSON.stringify(ref)}`, EXIT.refused);
  return match;
}

async function outputPath(output: string | undefined, name: string): Promise<string> {
  const { stat } = await import('node:fs/promises');
  if (output === undefined) return join(process.cwd(), basename(name));
  const isDir = await stat(output).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? join(output, basename(name)) : output;
}
