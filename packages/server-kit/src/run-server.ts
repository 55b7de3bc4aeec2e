// One entry point per server file, runnable both ways with the same code:
//   node --import tsx --conditions=ferry-source server.ts              → stdio
//   node --import tsx --conditions=ferry-source server.ts --http 8811  → Streamable HTTP
// The factory is called per connection (stdio) or per request (HTTP, the SDK's stateless serving),
// so a server must keep no state in the McpServer instance between calls.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { McpServerFactory, Transport } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { collectWhenIdle, releaseDrainedReadBuffer } from './idle-memory.js';
import type { McpFetch } from './serve-http.js';

export type ServerArgs = { transport: 'stdio' } | { transport: 'http'; port: number };

export interface RunServerOptions {
  /** Used as a prefix of log lines on stderr. */
  name: string;
  /** @default process.argv.slice(2) */
  argv?: string[];
  /**
   * Requests the server answers in front of the SDK's entry, which owns some methods outright
   * (subscriptions/listen): wraps the stdio wire, or the HTTP handler.
   */
  entry?: { stdio(wire: Transport): Transport; fetch(fetch: McpFetch): McpFetch };
}

export interface RunningServer {
  readonly transport: 'stdio' | 'http';
  /** The endpoint URL for HTTP; undefined for stdio. */
  readonly url?: string;
  close(): Promise<void>;
}

/**
 * `--http <port>` or `--http=<port>` (0 = any free port) selects Streamable HTTP; anything else,
 * stdio. Throws TypeError on a port that is not an integer from 0 to 65535.
 */
export function parseServerArgs(argv: readonly string[]): ServerArgs {
  // strict: false, because a server may take flags of its own (slow's --test-tools).
  const { values } = parseArgs({
    args: [...argv],
    options: { http: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  if (values.http === undefined) return { transport: 'stdio' };
  const value = typeof values.http === 'string' ? values.http : '';
  const port = Number(value);
  if (value === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`--http needs a port from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return { transport: 'http', port };
}

/**
 * Serves `createServer` over stdio, or over Streamable HTTP on 127.0.0.1 when the arguments say
 * `--http <port>`. In HTTP mode it prints `listening on http://127.0.0.1:<port>/mcp` on stderr
 * (with the real port when 0 was asked), which is what scripts and tests wait for, and closes
 * cleanly on SIGINT/SIGTERM.
 */
export async function runServer(
  createServer: McpServerFactory,
  options: RunServerOptions,
): Promise<RunningServer> {
  const args = parseServerArgs(options.argv ?? process.argv.slice(2));
  const onerror = (error: Error) => console.error(`[${options.name}] ${error.message}`);
  if (args.transport === 'stdio') {
    // A stdio server is a user's own process, idle most of the time: its garbage goes back when quiet.
    const stdio = new StdioServerTransport();
    const wire = collectWhenIdle(stdio, { beforeCollect: () => releaseDrainedReadBuffer(stdio) });
    const transport = options.entry?.stdio(wire) ?? wire;
    const handle = serveStdio(createServer, { onerror, transport });
    return { transport: 'stdio', close: () => handle.close() };
  }
  // Loaded only for HTTP: a stdio server (every local one) never pays for the HTTP stack (Hono and
  // undici, ~20 ms and ~10 MiB per process).
  const { serveHttp } = await import('./serve-http.js');
  const http = await serveHttp(createServer, { port: args.port, onerror, wrapFetch: options.entry?.fetch });
  console.error(`listening on ${http.url}`);
  const stop = () => {
    http.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    transport: 'http',
    url: http.url,
    close: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      return http.close();
    },
  };
}

/**
 * Whether the module at `moduleUrl` (pass `import.meta.url`) is the script Node was started with,
 * so a server file can both export its factory (for tests and hosts) and run when executed.
 */
export function isMainModule(moduleUrl: string, entry: string | undefined = process.argv[1]): boolean {
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
