// ferry call <server> <tool> --arg k=v --file [arg=]path --out dir [--no-input] [--form v2.1]
// Checks the tool's required parameters, uploads the files, starts the call, follows its events
// (progress bar, notices, stored files, reads through the file provider, the tool's questions asked
// on the terminal), prints the result (call-output.ts) and saves the output files. Ctrl-C cancels
// the call on the server.
import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  type CallDetail,
  type CallForm,
  type CallHandle,
  type FileDto,
  type FileProviderCallEvent,
  fileProviderLine,
  formatBytes,
  type StartCallRequest,
  type StoredFileSummary,
} from '@ferry/contract';
import type { Command } from 'commander';
import type { ApiClient } from './api-client.js';
import { formOption, printCallForm, printResult } from './call-output.js';
import { type CliIo, type CommandContext, contextOf } from './context.js';
import type { ElicitationQuestion } from './elicitation-form.js';
import { createFileResolver, createQuestions } from './elicitation-session.js';
import { CliError, EXIT } from './exit-codes.js';
import { createLineSource, type LineSource } from './line-source.js';
import { createProgressBar } from './progress.js';
import { onInterrupt } from './signals.js';
import { followEvents } from './sse-reader.js';
import { listTools, type ToolInfo } from './tools-command.js';

interface CallOptions {
  arg: string[];
  file: string[];
  out?: string;
  /** false with --no-input: the tool's questions are declined without asking. */
  input: boolean;
  form?: CallForm;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function addCallCommand(program: Command, io: CliIo): void {
  program
    .command('call')
    .description('call a tool: upload files, follow progress, print the result, save outputs')
    .argument('<server>', 'MCP server name')
    .argument('<tool>', 'tool name')
    .option('-a, --arg <key=value>', 'an argument (value parsed as JSON when it is JSON)', collect, [])
    .option(
      '-f, --file <[arg=]path>',
      'upload a file and pass it (to filename/filenames/an x-mcp-file input)',
      collect,
      [],
    )
    .option('-o, --out <dir>', 'save the output files here')
    .option(
      '--no-input',
      "decline the tool's questions (elicitations) without asking; otherwise they are asked on the terminal, or read line by line from piped stdin",
    )
    .addOption(formOption())
    .action(async (server: string, toolName: string, opts: CallOptions, command: Command) => {
      const session = randomUUID();
      const ctx = contextOf(command, io, session);
      try {
        process.exitCode = await runCall(ctx, server, toolName, opts);
      } finally {
        // Session-only files (persist_files_across_sessions=false) live as long as this run.
        await ctx.client.json('DELETE', `/api/sessions/${session}`).catch(() => undefined);
      }
    });
}

async function runCall(
  ctx: CommandContext,
  server: string,
  toolName: string,
  opts: CallOptions,
): Promise<number> {
  const { client } = ctx;
  const args = parseArgs(opts.arg);
  const tool = (await listTools(client, server)).find((t) => t.name === toolName);
  if (!tool)
    throw new CliError(
      `Server ${server} has no tool ${toolName} (see: ferry tools ls ${server})`,
      EXIT.usage,
    );
  // Everything the command line lacks is found before a byte is uploaded or a call is sent.
  const planned = planFiles(tool, opts.file, args);
  const missing = missingRequired(tool, args, planned);
  if (missing.length > 0) {
    throw new CliError(
      [
        `${server} ${toolName}: missing required arguments, nothing was sent:`,
        ...missing.map((line) => `  ${line}`),
        `see: ferry tools ls ${server}`,
      ].join('\n'),
      EXIT.usage,
    );
  }
  for (const { path } of planned) {
    if (!(await stat(path).catch(() => undefined))?.isFile())
      throw new CliError(`No such file: ${path}`, EXIT.usage);
  }
  const fileInputs: Record<string, string | string[]> = {};
  for (const { path, target } of planned) {
    const bar = createProgressBar(`uploading ${basename(path)}`, ctx.io.stderr);
    const file = await client.upload(path, { onProgress: (done, total) => bar.update(done, total) });
    bar.stop();
    ctx.note(`uploaded ${file.name} (${formatBytes(file.size)})`);
    assignFile(tool, target, file, args, fileInputs);
  }

  const { callId } = await client.json<CallHandle>('POST', '/api/calls', {
    server,
    tool: toolName,
    arguments: args,
    ...(Object.keys(fileInputs).length > 0 ? { fileInputs } : {}),
  } satisfies StartCallRequest);
  ctx.note(`call ${callId}`);
  const interrupted = new AbortController();
  const stopListening = onInterrupt(() => {
    ctx.note('\ncancelling…');
    interrupted.abort();
    client.json('DELETE', `/api/calls/${callId}`).catch(() => undefined);
  }, EXIT.interrupted);
  const bar = createProgressBar(toolName, ctx.io.stderr);
  let asking = false;
  let lines: LineSource | undefined;
  const questions = createQuestions({
    client,
    callId,
    mode: opts.input ? 'ask' : 'decline',
    lines: () => {
      lines ??= createLineSource({
        input: ctx.io.stdin ?? process.stdin,
        output: ctx.io.stderr,
        // Raw mode swallows Ctrl-C: send ourselves the signal, so it cancels the call as usual.
        onInterrupt: () => process.kill(process.pid, 'SIGINT'),
      });
      return lines;
    },
    resolveFile: createFileResolver(client, ctx.io.stderr),
    note: ctx.note,
    onAsking: (value) => {
      asking = value;
      if (value) bar.stop();
    },
  });
  try {
    await followEvents(client, `/api/calls/${callId}/events`, {
      onEvent: ({ event, data }) => {
        const body = JSON.parse(data) as Record<string, unknown>;
        if (event === 'elicitation') questions.asked(body as unknown as ElicitationQuestion);
        else if (event === 'elicitation_answered')
          questions.answered(String(body.elicitationId), String(body.action));
        else if (event === 'progress') {
          // A redrawn bar would overwrite the prompt being typed at.
          if (asking) return;
          const total = typeof body.total === 'number' ? body.total : undefined;
          bar.update(
            Number(body.progress),
            total,
            typeof body.message === 'string' ? body.message : undefined,
          );
        } else if (event === 'notice') bar.stop(`notice: ${String(body.message)}`);
        else if (event === 'file_stored') {
          const file = body.file as StoredFileSummary;
          bar.stop(`stored ${file.name} (${formatBytes(file.size)})`);
        } else if (event === 'file_provider') {
          if (asking) return;
          bar.stop(`file provider: ${fileProviderLine(body as unknown as FileProviderCallEvent)}`);
        } else if (event === 'failed') bar.stop(`failed: ${String(body.message)} (${String(body.code)})`);
        else if (event === 'cancelled') bar.stop(`cancelled: ${String(body.reason)}`);
        else if (event === 'finished') bar.stop();
      },
    });
  } finally {
    await questions.close();
    lines?.close();
    stopListening();
    bar.stop();
  }

  const detail = await client.json<CallDetail>('GET', `/api/calls/${callId}`);
  const response = detail.response;
  if (opts.form && response) await printCallForm(ctx, callId, opts.form);
  else if (ctx.options.json) ctx.printJson(detail);
  else if (response) printResult(ctx, response);
  if (response && opts.out) await saveOutputs(ctx, client, response.forUi.files, opts.out);
  if (interrupted.signal.aborted || response?.status === 'cancelled') return EXIT.interrupted;
  if (response?.status !== 'finished' || response.forModel.isError) return EXIT.toolFailed;
  return EXIT.ok;
}

async function saveOutputs(
  ctx: CommandContext,
  client: ApiClient,
  files: { id: string; name: string }[],
  dir: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    // The server's names are normalized already; basename keeps a hostile one inside `dir` anyway.
    const target = join(dir, basename(file.name));
    const bar = createProgressBar(`saving ${file.name}`, ctx.io.stderr);
    await client.download(`/api/files/${file.id}/content?download=true`, target, (done, total) =>
      bar.update(done, total),
    );
    bar.stop();
    ctx.note(`saved ${target}`);
  }
}

/** `k=v`; v is JSON when it parses as a number, boolean, null, array, object or quoted string. */
export function parseArgs(specs: string[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError(`--arg needs key=value, got ${JSON.stringify(spec)}`, EXIT.usage);
    const key = spec.slice(0, eq);
    const raw = spec.slice(eq + 1);
    let value: unknown = raw;
    if (/^(-?\d|true$|false$|null$|[[{"])/.test(raw)) {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    args[key] = value;
  }
  return args;
}

function splitFileSpec(spec: string): { key?: string; path: string } {
  const match = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.+)$/.exec(spec);
  return match ? { key: match[1] as string, path: match[2] as string } : { path: spec };
}

export interface PlannedFile {
  path: string;
  /** The argument the file goes to. */
  target: string;
}

/**
 * Where each --file goes, decided before anything is uploaded: the named argument, else the
 * first free file parameter in the order filename, filenames, file_names, then x-mcp-file inputs.
 */
function planFiles(tool: ToolInfo, specs: string[], args: Record<string, unknown>): PlannedFile[] {
  const kinds = new Map(tool.injected.map((p) => [p.name, p.kind]));
  const hostFilled = new Set(tool.injected.filter((p) => p.input === 'host').map((p) => p.name));
  const filled = new Set(Object.keys(args).filter((key) => args[key] !== undefined));
  return specs.map((spec) => {
    const { key, path } = splitFileSpec(spec);
    if (key !== undefined && hostFilled.has(key)) {
      throw new CliError(`${key} is filled in by Ferry; give the file to another argument`, EXIT.usage);
    }
    const target =
      key ??
      // The kind, not just the name: a `filename` paired with an x-mcp-file input is host-filled.
      ['filename', 'filenames', 'file_names'].find(
        (name) => kinds.get(name) === name && (name !== 'filename' || !filled.has('filename')),
      ) ??
      tool.fileInputs.find((input) => input.multiple || !filled.has(input.name))?.name;
    if (target === undefined) {
      throw new CliError(
        `${tool.name} takes no (more) files; name the argument: --file <arg>=<path>`,
        EXIT.usage,
      );
    }
    filled.add(target);
    return { path, target };
  });
}

/**
 * The required parameters (inputSchema.required, required x-mcp-file inputs) that neither --arg
 * nor --file fills, each with how to give it. Host-filled ones (username…) and ones with a
 * default are not the user's to give.
 */
function missingRequired(tool: ToolInfo, args: Record<string, unknown>, planned: PlannedFile[]): string[] {
  const injected = new Map(tool.injected.map((p) => [p.name, p]));
  const properties = tool.inputSchema.properties ?? {};
  const byFile = new Set(planned.map((p) => p.target));
  const required = new Set([
    ...(tool.inputSchema.required ?? []),
    ...tool.fileInputs.filter((input) => input.required).map((input) => input.name),
  ]);
  const missing: string[] = [];
  for (const name of required) {
    const param = injected.get(name);
    if (param?.input === 'host' || byFile.has(name) || properties[name]?.default !== undefined) continue;
    // x-mcp-file inputs take picked files only (the host refuses text), so --arg cannot fill them.
    if (param?.input !== 'file-picker' && args[name] !== undefined) continue;
    if (param?.input === 'file-picker') missing.push(`${name}: a file, --file ${name}=<path>`);
    else if (param?.input === 'file-names')
      missing.push(
        `${name}: one or more files, --file ${name}=<path> (repeat for more; or --arg '${name}=["<name in My Files>"]')`,
      );
    else if (param)
      missing.push(`${name}: a file, --file ${name}=<path> (or --arg ${name}=<name in My Files>)`);
    else missing.push(`${name}: --arg ${name}=<${typeHint(properties[name]?.type)}>`);
  }
  return missing;
}

function typeHint(type: unknown): string {
  if (typeof type === 'string') return type === 'string' ? 'value' : type;
  if (Array.isArray(type)) return type.filter((t) => t !== 'null').join('|') || 'value';
  return 'value';
}

/** Puts an uploaded file where planFiles decided. */
function assignFile(
  tool: ToolInfo,
  target: string,
  file: FileDto,
  args: Record<string, unknown>,
  fileInputs: Record<string, string | string[]>,
): void {
  const kinds = new Map(tool.injected.map((p) => [p.name, p.kind]));
  const multiple = new Set(tool.fileInputs.filter((f) => f.multiple).map((f) => f.name));
  const kind = kinds.get(target);
  if (kind === 'x-mcp-file') {
    if (multiple.has(target))
      fileInputs[target] = [...((fileInputs[target] as string[] | undefined) ?? []), file.id];
    else fileInputs[target] = file.id;
  } else if (kind === 'filenames' || kind === 'file_names') {
    args[target] = [...((args[target] as string[] | undefined) ?? []), file.name];
  } else {
    args[target] = file.name;
  }
}
