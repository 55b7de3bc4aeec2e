// Starts the example servers (their build, examples/servers/dist) as real processes, exactly as a
// host would (stdio through the SDK's StdioClientTransport; Streamable HTTP with `--http 0`, the
// port read from stderr), and connects a real SDK Client. Each test gets its own workspace root (FERRY_WORKSPACE_ROOT).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
export const SERVER_NAMES = [
  'report',
  'legacy',
  'inject',
  'merge',
  'slow',
  'escape',
  'media',
  'xfile',
  'secrets',
  'tasks',
  'signin',
  'csv-chart',
] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

/** The servers whose config turns on the file provider (they read the user's files only through it). */
export const FILE_PROVIDER_SERVERS: readonly ServerName[] = ['secrets'];
/** The servers only tests run (test/ferry.test-config.json); the others are in ferry.config.json. */
export const TEST_ONLY_SERVERS: readonly ServerName[] = ['legacy', 'escape'];
/** Extra arguments the test config gives a server: the slow server's misbehaving tools. */
export const TEST_ARGS: Partial<Record<ServerName, string[]>> = {
  slow: ['--test-tools'],
  tasks: ['--test-tools'],
};

/** Example scripts only tests start, by path (in neither config): oversized and exact-size outputs, attacks on the host. */
export type TestScript = 'flood' | 'sized' | 'attack';

/**
 * The server entries of the repository's ferry.config.json with test/ferry.test-config.json's over
 * them (the test config wins for a server in both), as written: commands still relative to the root.
 */
export async function configuredServers(): Promise<Record<string, Record<string, unknown>>> {
  const read = async (path: string) =>
    (
      JSON.parse(await readFile(join(REPO_ROOT, path), 'utf8')) as {
        servers: Record<string, Record<string, unknown>>;
      }
    ).servers;
  return { ...(await read('ferry.config.json')), ...(await read('test/ferry.test-config.json')) };
}

/**
 * The built example server (examples/servers/dist/<script>.js, what the configs run; the build is
 * vitest's and Playwright's global setup, examples/servers/scripts/build-servers.mjs).
 */
export function exampleScript(script: ServerName | TestScript): string {
  return join(REPO_ROOT, 'examples', 'servers', 'dist', `${script}.js`);
}

/** A stdio server config running the built example server as the configs run it (V8 flag included). */
export function scriptServer(script: ServerName | TestScript) {
  return {
    transport: 'stdio' as const,
    command: process.execPath,
    args: ['--max-semi-space-size=1', exampleScript(script)],
    cwd: REPO_ROOT,
  };
}

/**
 * The command line of test/ferry.test-config.json (ferry.config.json's for the servers it does not
 * override), with an absolute script path; `{ user: true }`: ferry.config.json's.
 */
export function serverCommand(
  name: ServerName,
  options: { user?: boolean } = {},
): { command: string; args: string[] } {
  const { command, args } = scriptServer(name);
  return { command, args: [...args, ...(options.user ? [] : (TEST_ARGS[name] ?? []))] };
}

export interface TempDir {
  path: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'ferry-examples-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

export interface StdioConnection {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function connectStdio(name: ServerName, workspaceRoot: string): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    ...serverCommand(name),
    cwd: REPO_ROOT,
    env: { ...getDefaultEnvironment(), FERRY_WORKSPACE_ROOT: workspaceRoot },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  const client = new Client({ name: `test-${name}`, version: '0.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => log, close: () => client.close() };
}

export interface HttpServerProcess {
  url: URL;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/;

export async function startHttp(name: ServerName, workspaceRoot: string): Promise<HttpServerProcess> {
  const { command, args } = serverCommand(name);
  const child = spawn(command, [...args, '--http', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, FERRY_WORKSPACE_ROOT: workspaceRoot },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not listen within 20 s:\n${log}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const match = LISTENING.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1] as string));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${log}`));
    });
  });
  return {
    url,
    child,
    exited,
    stderr: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function connectHttp(url: URL): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'test-http', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return { client, close: () => client.close() };
}

export type ExampleTransport = 'stdio' | 'http';

export interface ExampleConnection {
  client: Client;
  /** Closes the client and, over HTTP, stops the server process. */
  close(): Promise<void>;
}

/** A client of `name` over `transport`; over HTTP the server process is started first (`startHttp`). */
export async function connectExample(
  name: ServerName,
  transport: ExampleTransport,
  workspaceRoot: string,
): Promise<ExampleConnection> {
  if (transport === 'stdio') {
    const { client, close } = await connectStdio(name, workspaceRoot);
    return { client, close };
  }
  const server = await startHttp(name, workspaceRoot);
  try {
    const { client, close } = await connectHttp(server.url);
    return {
      client,
      close: async () => {
        await close();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Whether a process with this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The JSON of a tool result: structuredContent, checked to equal the JSON text block. */
export function payloadOf(result: {
  content?: unknown;
  structuredContent?: unknown;
}): Record<string, unknown> {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const text = content.find((block) => block.type === 'text')?.text;
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (structured === undefined) throw new Error('the result has no structuredContent');
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(structured)) {
    throw new Error('the JSON text block differs from structuredContent');
  }
  return structured;
}
