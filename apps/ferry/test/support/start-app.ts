// A real Ferry for tests: storage (local disk + SQLite) in a fresh temporary directory, the host
// with the example servers of the repository's ferry.config.json and test/ferry.test-config.json,
// the app listening on a random loopback port. `http()` is a small node:http client that can send
// what fetch refuses to.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHost, type Host } from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { configuredServers } from '@ferry/test-helpers/example-servers';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { type AppConfigInput, defaultAppConfig } from '../../src/config/app-config.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');

/** The shared secret of proxy-mode test apps (`PROXY_AUTH`); `asUser` sends it. */
export const PROXY_SECRET = 'test-proxy-secret-0123456789';
/** `auth` for a proxy-mode test app: a trusted proxy on loopback that sends `PROXY_SECRET`. */
export const PROXY_AUTH = { mode: 'proxy', proxySecret: PROXY_SECRET } as const;

/** What the authenticating proxy adds to a request of `username`: the name and the shared secret. */
export function asUser(username: string): Record<string, string> {
  return { 'x-forwarded-user': username, 'x-ferry-proxy-secret': PROXY_SECRET };
}

/** The two users of proxy-mode tests, as their proxy's headers. */
export const ALICE = asUser('alice');
export const BOB = asUser('bob');

export interface TestApp {
  url: string;
  app: FastifyInstance;
  storage: OpenedStorage;
  host: Host;
  dir: string;
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  app?: AppConfigInput;
  /** Storage flags/settings (e.g. `{ max_file_size_mb: 1 }`). */
  storage?: Record<string, unknown>;
  /** @default the example servers of ferry.config.json (enabled ones) */
  servers?: Record<string, unknown>;
  /** The app's logger, e.g. `{ level: 'info', stream }` to read its lines. @default none */
  logger?: AppDeps['logger'];
  /** More of the app's parts, made over the test app's own (the chat's agent and conversations). */
  deps?: (parts: { host: Host; storage: OpenedStorage; dir: string }) => Partial<AppDeps>;
}

export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-app-'));
  const storage = await openStorage(
    loadStorageConfig({ file: { ...options.storage, dataDir: join(dir, 'data') }, env: {} }),
  );
  const servers = options.servers ?? (await exampleServers());
  let baseUrl = '';
  const host = createHost({
    config: { servers },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `${baseUrl}/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  const app = buildApp({
    files: storage.files,
    host,
    config: defaultAppConfig(options.app),
    hostPaths: { data: join(dir, 'data'), workspace: join(dir, 'workspaces') },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...options.deps?.({ host, storage, dir }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    app,
    storage,
    host,
    dir,
    close: async () => {
      await app.close();
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The example servers from the repository's ferry.config.json and test/ferry.test-config.json
 * (which wins for a server in both), run from the repository root.
 */
export async function exampleServers(): Promise<Record<string, unknown>> {
  const all = await configuredServers();
  const servers: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(all)) {
    servers[name] =
      server.transport === 'stdio' ? { ...server, command: process.execPath, cwd: REPO_ROOT } : server;
  }
  return servers;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
}

export function http(base: string, path: string, options: HttpOptions = {}): Promise<HttpResult> {
  return new Promise((resolvePromise, reject) => {
    const request = httpRequest(
      new URL(path, base),
      {
        method: options.method ?? 'GET',
        // Node's client sends a DELETE or OPTIONS body without Content-Length unless told.
        headers: {
          ...(options.body === undefined ? {} : { 'content-length': Buffer.byteLength(options.body) }),
          ...options.headers,
        },
      },
      (response) => {
        // An event stream never ends by itself: answer with its status and headers, then hang up.
        if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.destroy();
          const empty = Buffer.alloc(0);
          resolvePromise({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: empty,
            text: '',
            json: <T>() => JSON.parse('') as T,
          });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolvePromise({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Uploads `body` as a raw-body file named `name`. */
export async function upload(
  base: string,
  name: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return http(base, `/api/files?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body,
  });
}

export interface FileJson {
  id: string;
  name: string;
  size: number;
  mime: string;
  version: number;
  sha256: string;
}

export async function uploadOk(
  base: string,
  name: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<FileJson> {
  const result = await upload(base, name, body, headers);
  if (result.status !== 201) throw new Error(`upload of ${name} failed: ${result.status} ${result.text}`);
  return result.json<{ files: FileJson[] }>().files[0] as FileJson;
}

/** Starts a tool call (POST /api/calls, `body` as JSON) that must be accepted (202); its id. */
export async function startCallOk(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  const result = await http(base, '/api/calls', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (result.status !== 202) throw new Error(`the call was not started: ${result.status} ${result.text}`);
  return result.json<{ callId: string }>().callId;
}

/** A multipart/form-data body with the given file parts. */
export function multipartBody(
  parts: { field?: string; filename: string; type?: string; content: string | Buffer }[],
  boundary = 'ferry-test-boundary',
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Talks HTTP/1.1 by hand over a socket (for bodies that lie about their length, chunked framing,
 * broken requests). Resolves with everything the server sent once it closes the connection or
 * has sent `responses` complete responses.
 */
export function rawRequest(
  base: string,
  write: (socket: import('node:net').Socket) => void,
  options: { responses?: number; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolvePromise) => {
    const socket = connectSocket(Number(new URL(base).port), '127.0.0.1', () => write(socket));
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolvePromise(text);
    };
    const timer = setTimeout(done, options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (completeResponses(text) >= (options.responses ?? 1)) done();
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}

function completeResponses(text: string): number {
  let count = 0;
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return count;
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    if (rest.length < end + 4 + length) return count;
    count++;
    rest = rest.slice(end + 4 + length);
  }
}

export function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

/**
 * The detail of a call once it is no longer running (GET /api/calls/{id} polled every 50 ms). The
 * bound is a time, not a number of tries: a busy machine slows the requests, not the clock.
 */
export async function settledCall<T extends { status: string }>(
  base: string,
  callId: string,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const body = (await http(base, `/api/calls/${callId}`, { headers })).json<T>();
    if (body.status !== 'running') return body;
    if (performance.now() > deadline) throw new Error(`call ${callId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every version the default user has stored, as `name@version`, newest first. */
export async function storedVersions(base: string): Promise<string[]> {
  const result = await http(base, '/api/files?allVersions=true&limit=1000');
  return result.json<{ items: FileJson[] }>().items.map((f) => `${f.name}@${f.version}`);
}

/** How many blob files the test app has on disk, partial uploads included. */
export async function blobFileCount(t: TestApp): Promise<number> {
  const root = join(t.dir, 'data', 'blobs');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}
