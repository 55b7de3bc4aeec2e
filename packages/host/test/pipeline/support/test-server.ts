// A real McpServer whose tools follow each convention the pipeline handles: username and
// filename injection, file_data_base64, x-mcp-file, a slow tool the test steers, and tools that
// return files in every form (or try to escape the workspace). Tools write where an unsandboxed
// tool finds its workspace: `<workspaceRoot>/<username>`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

type Json = Record<string, unknown>;

export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg==';

/** A valid, empty 8 kHz mono PCM WAV (44-byte header), so the store's sniffing agrees. */
const SILENT_WAV = (() => {
  const wav = Buffer.alloc(44);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  return wav;
})();

export interface SlowControl {
  /** Makes the running `slow` tool send one progress notification. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Lets the running `slow` tool return. */
  finish(): void;
  /** Resolves when the running `slow` tool saw its request cancelled. */
  cancelled: Promise<void>;
}

export interface TestServer {
  server: McpServer;
  /** Tool name → how often it ran. */
  calls: Record<string, number>;
  /** Tool name → the arguments of its last call, as the tool received them. */
  lastArgs: Record<string, Json>;
  slow: SlowControl;
}

const string = { type: 'string' } as const;
const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
});
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

export function createTestServer(workspaceRoot: string): TestServer {
  const server = new McpServer({ name: 'ferry-test-server', version: '0.0.0' });
  const calls: Record<string, number> = {};
  const lastArgs: Record<string, Json> = {};
  let send: ((p: number, t?: number, m?: string) => Promise<void>) | undefined;
  let release: (() => void) | undefined;
  let cancelledResolve: () => void = () => undefined;
  const slow: SlowControl = {
    progress: async (p, t, m) => send?.(p, t, m),
    finish: () => release?.(),
    cancelled: new Promise<void>((resolve) => {
      cancelledResolve = resolve;
    }),
  };

  const tool = (
    name: string,
    properties: Json,
    handler: (
      args: Json,
      ctx: Parameters<Parameters<McpServer['registerTool']>[2]>[1],
    ) => Promise<CallToolResult>,
  ) => {
    server.registerTool(
      name,
      { inputSchema: fromJsonSchema({ type: 'object', properties } as never) },
      async (args: unknown, ctx) => {
        calls[name] = (calls[name] ?? 0) + 1;
        lastArgs[name] = args as Json;
        return handler(args as Json, ctx);
      },
    );
  };
  const workspaceOf = (args: Json) => join(workspaceRoot, String(args.username));

  tool('whoami', { username: string, note: string }, async (args) => json({ results: args }));
  tool('echo', { text: string }, async (args) => json({ results: args }));
  tool('read_input', { filename: string }, async (args) => {
    const path = String(args.filename);
    const data = await readFile(path);
    const info = await stat(path);
    return json({ results: { path, sha256: sha(data), size: data.length, mode: info.mode & 0o777 } });
  });
  tool('fetch_urls', { filename: string, file_names: { type: 'array', items: string } }, async (args) =>
    json({ results: { received: args } }),
  );
  tool('inject', { filename: string, file_data_base64: string }, async (args) =>
    json({
      results: {
        filename: args.filename,
        sha256: sha(Buffer.from(String(args.file_data_base64 ?? ''), 'base64')),
      },
    }),
  );
  tool(
    'describe_image',
    { image: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/png'], maxSize: 10_000 } } },
    async (args) => json({ results: { image: args.image } }),
  );
  tool(
    'gallery',
    {
      images: {
        type: 'array',
        items: { type: 'string', format: 'uri', 'x-mcp-file': { accept: ['image/*'] } },
      },
    },
    async (args) => json({ results: { count: Array.isArray(args.images) ? args.images.length : 0 } }),
  );
  tool('slow', {}, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    send = async (progress, total, message) => {
      if (token === undefined) return;
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message ? { message } : {}),
        },
      });
    };
    await new Promise<void>((resolve) => {
      release = resolve;
      ctx.mcpReq.signal.addEventListener('abort', () => {
        cancelledResolve();
        resolve();
      });
    });
    return json({ results: { done: true } });
  });

  tool('produce_v21', { username: string }, async (args) => {
    const ws = workspaceOf(args);
    await mkdir(join(ws, 'out'), { recursive: true });
    await writeFile(join(ws, 'out', 'report.html'), '<h1>Report</h1>');
    await writeFile(join(ws, 'draft.md'), '# Draft\n');
    // Not listed in the result: workspace detection must find it.
    await writeFile(join(ws, 'notes.txt'), 'unlisted notes');
    return json({
      results: { summary: 'done' },
      artifacts: [
        {
          name: 'report.html',
          path: join(ws, 'out', 'report.html'),
          mime: 'text/html',
          description: 'The report',
          category: 'report',
        },
        { name: 'data.csv', b64: Buffer.from('a,b\n1,2\n').toString('base64'), mime: 'text/csv' },
      ],
      deferred_artifacts: [
        { name: 'draft.md', path: join(ws, 'draft.md'), mime: 'text/markdown', expires_hours: 2 },
      ],
      display: { open_canvas: true, primary_file: 'report.html' },
    });
  });
  tool('produce_legacy', {}, async () =>
    json({
      results: 'legacy',
      returned_file_names: ['one.txt', 'two.txt'],
      returned_file_contents: [Buffer.from('one').toString('base64'), Buffer.from('two').toString('base64')],
    }),
  );
  tool('produce_returned', {}, async () =>
    json({
      analysis: 'ok',
      returned_file_name: 'analysis.txt',
      returned_file_base64: Buffer.from('analysis').toString('base64'),
    }),
  );
  tool('produce_mcp', {}, async () => ({
    content: [
      { type: 'text', text: 'media' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'audio', data: SILENT_WAV.toString('base64'), mimeType: 'audio/wav' },
      {
        type: 'resource',
        resource: { uri: 'file:///x/notes.md', mimeType: 'text/markdown', text: '# Notes' },
      },
      {
        type: 'resource',
        resource: {
          uri: 'file:///x/blob.bin',
          mimeType: 'application/octet-stream',
          blob: Buffer.from([0, 255, 1, 0x80, 0]).toString('base64'),
        },
      },
      {
        type: 'resource_link',
        uri: 'https://example.com/big.parquet',
        name: 'big.parquet',
        mimeType: 'application/octet-stream',
      },
    ],
  }));
  tool('escape', { username: string }, async (args) => {
    const ws = workspaceOf(args);
    await mkdir(ws, { recursive: true });
    await symlink('/etc/hostname', join(ws, 'link.txt'));
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    return json({
      results: 'tried',
      artifacts: [
        { name: 'up.txt', path: `${ws}/../../secret.txt`, mime: 'text/plain' },
        { name: 'passwd', path: '/etc/passwd', mime: 'text/plain' },
        { name: 'link.txt', path: join(ws, 'link.txt'), mime: 'text/plain' },
        { name: 'pipe', path: join(ws, 'pipe'), mime: 'text/plain' },
      ],
    });
  });
  return { server, calls, lastArgs, slow };
}
