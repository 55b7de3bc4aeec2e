// Hostile on purpose, for the host's intake limits: results too big or too deeply nested to hold,
// stderr floods that imitate Ferry's own log lines, and a process that dies in the middle of a
// call. The big and deep results are written straight to stdout as one JSON-RPC line, streamed in
// pieces, so the server itself never holds them (and the SDK's JSON.stringify, which recurses,
// never sees them); those tools therefore work over stdio only. Do not copy these.
// Not hostile: big_json, a JSON result Ferry reads fine but a model cannot (the host stores it as
// a file and gives the model its beginning), the same bytes every time so a test can compare them.
// The tests: packages/host/test/integration/intake-limits.test.ts and apps/ferry/test/routes/.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/flood.ts
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  isMainModule,
  jsonResult,
  parseServerArgs,
  reportProgress,
  runServer,
  v21Result,
} from '@ferry/server-kit';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const MIB = 1024 * 1024;
/**
 * big_json sends its rows twice, as structuredContent and as a text block (escaped once more):
 * this much stays under the host's default limit of 64 MiB per result.
 */
const MAX_BIG_JSON_BYTES = 24 * MIB;
/** Never settles: the answer went out by hand, or the process is about to end. */
const never = () => new Promise<CallToolResult>(() => {});

async function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * One JSON-RPC response line for request `id`, `result` given as pieces of raw JSON. Written
 * without yielding to the event loop, so no message of the SDK's lands inside the line: stdout
 * writes to a pipe are synchronous on Linux (each piece is in the pipe when write returns, so
 * nothing piles up here either).
 */
function writeResponse(id: unknown, result: Iterable<string>, idFirst: boolean): void {
  const idJson = JSON.stringify(id);
  // The SDK writes `{"result":…,"jsonrpc":"2.0","id":…}`: the id comes last, after the result.
  process.stdout.write(idFirst ? `{"jsonrpc":"2.0","id":${idJson},"result":` : '{"result":');
  // 2026-07-28 requires `resultType` on every result; a 2025 client reads it as an extra field.
  let first = true;
  for (const piece of result) {
    if (first && !piece.startsWith('{')) throw new Error('a result starts with "{"');
    process.stdout.write(first ? `{"resultType":"complete",${piece.slice(1)}` : piece);
    first = false;
  }
  process.stdout.write(idFirst ? '}\n' : `,"jsonrpc":"2.0","id":${idJson}}\n`);
}

function* bigText(mib: number, fill: 'base64' | 'x'): Iterable<string> {
  yield '{"content":[{"type":"text","text":"';
  // 768 KiB of random bytes encode to exactly 1 MiB of base64 without padding, so the pieces join
  // into one unbroken run of mixed case and digits: what a tool echoing a file inline looks like.
  for (let i = 0; i < mib; i++)
    yield fill === 'x' ? 'x'.repeat(MIB) : randomBytes((MIB * 3) / 4).toString('base64');
  yield '"}]}';
}

/** Rows whose JSON (`{"rows":[…]}`) has at least `bytes` bytes. */
function bigRows(bytes: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  let size = '{"rows":[]}'.length;
  for (let id = 0; size < bytes; id++) {
    const row = {
      id,
      name: `row ${id}`,
      text: `"quoted" line ${id}\nsecond line: café, naïve, 🚢`,
      values: [id, id * 2, id % 7],
    };
    size += Buffer.byteLength(JSON.stringify(row)) + (id > 0 ? 1 : 0);
    rows.push(row);
  }
  return rows;
}

/** `{"a":{"a":…1…}}`, `depth` objects deep, built as a string (no recursion anywhere). */
function* deepObject(depth: number): Iterable<string> {
  yield '{"a":'.repeat(depth);
  yield '1';
  yield '}'.repeat(depth);
}

function requireStdio(): void {
  if (parseServerArgs(process.argv.slice(2)).transport !== 'stdio') {
    throw new Error('this tool writes its answer to stdout by hand: stdio only');
  }
}

export function createFloodServer(): McpServer {
  const server = new McpServer({ name: 'ferry-example-flood', version: '0.1.0' });

  server.registerTool(
    'big_text',
    {
      description:
        'A text result of `mib` MiB (base64 of random bytes, or x characters), streamed to stdout as one JSON-RPC line. stdio only.',
      inputSchema: z.object({
        mib: z.number().int().min(1).max(4096),
        fill: z.enum(['base64', 'x']).default('base64'),
        idFirst: z.boolean().default(false).describe('Write the request id before the result'),
      }),
    },
    async ({ mib, fill, idFirst }, ctx) => {
      requireStdio();
      writeResponse(ctx.mcpReq.id, bigText(mib, fill), idFirst);
      return never();
    },
  );

  server.registerTool(
    'deep_json',
    {
      description:
        'A result nested `depth` objects deep: as a JSON text block, or as structuredContent written to stdout by hand (stdio only).',
      inputSchema: z.object({
        depth: z.number().int().min(1).max(1_000_000),
        as: z.enum(['text', 'structured']).default('text'),
      }),
    },
    async ({ depth, as }, ctx) => {
      if (as === 'text') return { content: [{ type: 'text', text: [...deepObject(depth)].join('') }] };
      requireStdio();
      const result = ['{"content":[],"structuredContent":{"results":', ...deepObject(depth), '}}'];
      writeResponse(ctx.mcpReq.id, result, false);
      return never();
    },
  );

  server.registerTool(
    'stderr_flood',
    {
      description: 'Writes `lines` to stderr, the whole list `repeat` times, then answers with the count.',
      inputSchema: z.object({ lines: z.array(z.string()).min(1), repeat: z.number().int().min(1).max(1e6) }),
    },
    async ({ lines, repeat }) => {
      const block = lines.map((line) => `${line}\n`).join('');
      for (let i = 0; i < repeat; i++) await write(process.stderr, block);
      return v21Result({ results: { written: lines.length * repeat } });
    },
  );

  server.registerTool(
    'wait',
    {
      description:
        'Reports progress once ("waiting", so the caller knows the call runs), then never answers.',
      inputSchema: z.object({}),
    },
    async (_args, ctx) => {
      await reportProgress(ctx, 0, undefined, 'waiting');
      return never();
    },
  );

  server.registerTool(
    'exit_mid_call',
    {
      description: 'Makes the server process exit with `code` while the call is in flight.',
      inputSchema: z.object({ code: z.number().int().min(0).max(255) }),
    },
    async ({ code }) => {
      // After this handler has returned its pending promise, so the call is truly in flight.
      setTimeout(() => process.exit(code), 10);
      return never();
    },
  );

  server.registerTool(
    'big_json',
    {
      description:
        'A JSON result `{ rows: [...] }` of at least `bytes` bytes, the same rows every time (each with quotes, a line break, accented letters and an emoji), as structuredContent and the same JSON text.',
      inputSchema: z.object({ bytes: z.number().int().min(1).max(MAX_BIG_JSON_BYTES) }),
    },
    async ({ bytes }) => jsonResult({ rows: bigRows(bytes) }),
  );

  server.registerTool(
    'echo',
    { description: 'Answers with its text: legitimate work.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => v21Result({ results: { text, pid: process.pid } }),
  );
  return server;
}

if (isMainModule(import.meta.url)) await runServer(createFloodServer, { name: 'flood' });
