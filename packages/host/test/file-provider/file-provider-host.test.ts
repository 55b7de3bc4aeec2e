// The file provider wired into the host, as production runs it: a real stdio example server (the
// attack server) under the real bubblewrap sandbox, with `fileProvider` on. Each connection gets
// its own token (for its user only, revoked when it closes), the URL, and the user's socket bound
// read-only at /run/ferry/file-provider.sock; a callback made from inside the sandbox during a call
// becomes a `file_provider` event of that call. A server without `fileProvider` gets none of it; a
// remote server gets the placeholders in its headers. No sandbox here fails loudly, never skips.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import { createBubblewrapLauncher, probeSandbox } from '@ferry/sandbox';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileProvider, type FileProvider } from '../../src/file-provider/create-file-provider.js';
import { parseFileProviderSettings } from '../../src/file-provider/provider-settings.js';
import type { ProviderCallbackEvent } from '../../src/file-provider/provider-types.js';
import { createHost, type Host } from '../../src/host.js';
import { ATTACK_SERVER, MAX_FILE_MB, TEST_LIMITS } from '../sandbox/support/sandboxed-host.js';
import { createFixtureServer } from '../support/fixture-server.js';
import { startHttpMcpServer, type TestHttpServer } from '../support/http-server.js';

const BASE_URL = 'http://127.0.0.1:9';
const SOCKET_INSIDE = '/run/ferry/file-provider.sock';
const PROVIDER_ENV = ['FERRY_FILE_PROVIDER_URL', 'FERRY_FILE_PROVIDER_TOKEN', 'FERRY_FILE_PROVIDER_SOCKET'];

let dir: string;
let storage: OpenedStorage;
let provider: FileProvider;
let host: Host;
const owners: Record<string, string> = {};
const audit: ProviderCallbackEvent[] = [];

beforeAll(async () => {
  const probe = await probeSandbox({ mode: 'required' });
  if (!probe.available)
    throw new Error(`bubblewrap cannot run here (these tests never skip): ${probe.reason}`);
  dir = await mkdtemp('/var/tmp/ferry-fp-host-');
  const dataDir = join(dir, 'data');
  const workspacesRoot = join(dir, 'workspaces');
  storage = await openStorage(
    loadStorageConfig({ file: { max_file_size_mb: MAX_FILE_MB }, env: { FERRY_DATA_DIR: dataDir } }),
  );
  const launcher = createBubblewrapLauncher({
    workspacesRoot,
    mode: 'required',
    hide: [dataDir],
    limits: TEST_LIMITS,
  });
  provider = createFileProvider({
    settings: parseFileProviderSettings({ enabled: true }),
    files: storage.files,
    workspacesRoot,
    baseUrl: () => BASE_URL,
    audit: (event) => audit.push(event),
  });
  host = createHost({
    config: {
      servers: {
        attack: { ...ATTACK_SERVER, fileProvider: true, env: { URL_COPY: '{{fileProviderUrl}}' } },
        plain: ATTACK_SERVER,
      },
    },
    files: storage.files,
    workspacesRoot,
    launcher,
    toolRoot: launcher.toolRootFor,
    fileProvider: provider,
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  for (const user of ['alice', 'bob']) owners[user] = await storage.files.ensureUser(user);
});

afterAll(async () => {
  await host?.close();
  await provider?.close();
  await storage?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function call(user: string, server: string, tool: string, args: Record<string, unknown> = {}) {
  const events: CallEvent[] = [];
  const response: ToolCallResponse = await host.callTool(
    { user: { owner: owners[user] as string, username: user }, server, tool, arguments: args },
    (event) => events.push(event),
  );
  expect(response.status, JSON.stringify(response.forUi)).toBe('finished');
  return { events, results: (response.forModel.results ?? {}) as Record<string, unknown> };
}

async function envOf(user: string, server: string): Promise<Record<string, string>> {
  return (await call(user, server, 'inspect')).results.env as Record<string, string>;
}

async function connectFrom(user: string, server: string, socketPath: string) {
  return (await call(user, server, 'net_connect', { host: socketPath, port: 0 })).results;
}

/**
 * Node inside the user's sandbox (the attack server's `run`) calling the provider over the socket
 * its env names, with the token given (default: its own), as a tool server would.
 */
async function callbackFrom(
  user: string,
  request: { tool: string; arguments: Record<string, unknown>; token?: string },
) {
  const script = `
const http = require('node:http');
const url = new URL(process.env.FERRY_FILE_PROVIDER_URL);
const token = process.argv[1] || process.env.FERRY_FILE_PROVIDER_TOKEN;
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: JSON.parse(process.argv[2]) });
const req = http.request({ socketPath: process.env.FERRY_FILE_PROVIDER_SOCKET, method: 'POST', path: url.pathname,
  headers: { host: url.host, authorization: 'Bearer ' + token, 'content-type': 'application/json',
    accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) } },
  (res) => { let data = ''; res.on('data', (c) => { data += c; });
    res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body: data }))); });
req.on('error', (e) => console.log(JSON.stringify({ error: e.code })));
req.end(body);`;
  const params = JSON.stringify({ name: request.tool, arguments: request.arguments });
  const called = await call(user, 'attack', 'run', {
    command: process.execPath,
    // `--`: a token may begin with '-' (base64url), which node would take for an option.
    args: ['-e', script, '--', request.token ?? '', params],
  });
  const ran = called.results as { status: number; stdout: string; stderr: string };
  expect(ran.status, ran.stderr).toBe(0);
  return { answer: JSON.parse(ran.stdout) as { status: number; body: string }, events: called.events };
}

describe('a sandboxed local server with fileProvider', () => {
  let aliceToken: string;

  it('gets the URL, its own token and the socket path inside; placeholders filled', async () => {
    const env = await envOf('alice', 'attack');
    expect(env.FERRY_FILE_PROVIDER_URL).toBe(`${BASE_URL}/api/file-provider/alice/mcp`);
    expect(env.FERRY_FILE_PROVIDER_SOCKET).toBe(SOCKET_INSIDE);
    expect(env.URL_COPY).toBe(env.FERRY_FILE_PROVIDER_URL);
    aliceToken = env.FERRY_FILE_PROVIDER_TOKEN as string;
    const verified = provider.tokens.verify(aliceToken, 'alice');
    expect(verified).toMatchObject({
      ok: true,
      grant: { username: 'alice', server: 'attack', compat: false },
    });
    // The token is alice's alone.
    expect(provider.tokens.verify(aliceToken, 'bob')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('can connect to the socket at /run/ferry/file-provider.sock; its host path is invisible', async () => {
    expect(await connectFrom('alice', 'attack', SOCKET_INSIDE)).toEqual({ ok: true });
    const hostPath = await provider.socketFor('alice');
    expect(hostPath).not.toBe(SOCKET_INSIDE);
    expect(await connectFrom('alice', 'attack', hostPath)).toEqual({ ok: false, error: 'ENOENT' });
  });

  it('a callback from inside the sandbox reads the workspace and is an event of the running call', async () => {
    const content = `notes of alice ${Math.random()}`;
    await call('alice', 'attack', 'write_workspace', { name: 'notes.txt', content });
    const before = audit.length;
    const { answer, events } = await callbackFrom('alice', {
      tool: 'read_file',
      arguments: { file_path: '/tmp/alice/notes.txt' },
    });
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.body) as { result: { structuredContent: { result: string } } };
    expect(message.result.structuredContent.result).toBe(content);
    const provided = events.filter((event) => event.type === 'file_provider');
    expect(provided).toEqual([
      expect.objectContaining({
        type: 'file_provider',
        tool: 'read_file',
        path: '/tmp/alice/notes.txt',
        ok: true,
        bytes: Buffer.byteLength(content),
      }),
    ]);
    // Between started and finished, in the call's own sequence.
    const types = events.map((event) => event.type);
    expect(types.indexOf('file_provider')).toBeGreaterThan(types.indexOf('started'));
    expect(types.indexOf('file_provider')).toBeLessThan(types.indexOf('finished'));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    // Audited too, with the server, never the content.
    expect(audit.slice(before)).toEqual([
      expect.objectContaining({ username: 'alice', server: 'attack', tool: 'read_file', ok: true }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(content);
  });

  it('a refused callback is an event too (outside the user’s files: PermissionError)', async () => {
    const { answer, events } = await callbackFrom('alice', {
      tool: 'read_file',
      arguments: { file_path: '/etc/passwd' },
    });
    expect(answer.status).toBe(200);
    expect(events.filter((event) => event.type === 'file_provider')).toEqual([
      expect.objectContaining({ tool: 'read_file', ok: false, errorType: 'PermissionError' }),
    ]);
  });

  it('another user’s sandbox has its own socket and token; alice’s are of no use there', async () => {
    const env = await envOf('bob', 'attack');
    const bobToken = env.FERRY_FILE_PROVIDER_TOKEN as string;
    expect(env.FERRY_FILE_PROVIDER_URL).toBe(`${BASE_URL}/api/file-provider/bob/mcp`);
    expect(provider.tokens.verify(bobToken, 'bob').ok).toBe(true);
    expect(provider.tokens.verify(bobToken, 'alice').ok).toBe(false);
    // Alice's socket (its host path) does not exist in bob's sandbox.
    expect(await connectFrom('bob', 'attack', await provider.socketFor('alice'))).toEqual({
      ok: false,
      error: 'ENOENT',
    });
    // Bob's socket serves bob: alice's token is refused there.
    const { answer, events } = await callbackFrom('bob', {
      tool: 'list_directory',
      arguments: { directory_path: '/tmp/alice' },
      token: aliceToken,
    });
    expect(answer.status).toBe(401);
    expect(events.some((event) => event.type === 'file_provider')).toBe(false);
  });

  it('closing the connection revokes its token; the next connection has a new one', async () => {
    expect(provider.tokens.verify(aliceToken, 'alice').ok).toBe(true);
    expect(await host.pool.closeUser('alice')).toBeGreaterThan(0);
    expect(provider.tokens.verify(aliceToken, 'alice')).toEqual({ ok: false, reason: 'invalid' });
    const fresh = (await envOf('alice', 'attack')).FERRY_FILE_PROVIDER_TOKEN as string;
    expect(fresh).not.toBe(aliceToken);
    expect(provider.tokens.verify(fresh, 'alice').ok).toBe(true);
    expect(provider.tokens.grants('alice').map((grant) => grant.server)).toEqual(['attack']);
  });
});

describe('a server without fileProvider', () => {
  it('gets no provider variables and no socket', async () => {
    const env = await envOf('alice', 'plain');
    for (const name of PROVIDER_ENV) expect(env, name).not.toHaveProperty(name);
    expect(await connectFrom('alice', 'plain', SOCKET_INSIDE)).toEqual({ ok: false, error: 'ENOENT' });
    expect(provider.tokens.grants('alice').every((grant) => grant.server !== 'plain')).toBe(true);
  });
});

describe('a remote server with fileProvider', () => {
  let http: TestHttpServer;
  beforeAll(async () => {
    http = await startHttpMcpServer(() => createFixtureServer('fixture-http'));
  });
  afterAll(() => http?.close());

  it('gets the URL and a token of its connection in its headers; closing revokes it', async () => {
    const remoteHost = createHost({
      config: {
        servers: {
          remote: {
            transport: 'http',
            url: http.url,
            fileProvider: { compat: true },
            headers: { 'X-FP-Url': '{{fileProviderUrl}}', 'X-FP-Token': 'Bearer {{fileProviderToken}}' },
          },
        },
      },
      files: storage.files,
      workspacesRoot: join(dir, 'workspaces'),
      fileProvider: provider,
      downloadUrl: () => 'http://127.0.0.1:1/',
    });
    try {
      await remoteHost.listTools('remote', 'alice');
      const headers = http.requests.at(-1) ?? {};
      expect(headers['x-fp-url']).toBe(`${BASE_URL}/api/file-provider/alice/compat`);
      const token = String(headers['x-fp-token']).replace(/^Bearer /, '');
      expect(provider.tokens.verify(token, 'alice')).toMatchObject({
        ok: true,
        grant: { server: 'remote', compat: true },
      });
      await remoteHost.pool.closeUser('alice');
      expect(provider.tokens.verify(token, 'alice').ok).toBe(false);
    } finally {
      await remoteHost.close();
    }
  });
});

describe('config: the provider placeholders need fileProvider on that server', () => {
  const hostWith = (servers: Record<string, unknown>) => () =>
    createHost({
      config: { servers },
      files: storage.files,
      workspacesRoot: join(dir, 'workspaces'),
      downloadUrl: () => 'http://127.0.0.1:1/',
    });

  it('names the server and the field of each use', () => {
    expect(
      hostWith({
        tool: { transport: 'stdio', command: 'node', args: ['--url', '{{fileProviderUrl}}'] },
        api: {
          transport: 'http',
          url: 'http://127.0.0.1:1/mcp',
          headers: { Authorization: 'Bearer {{fileProviderToken}}' },
        },
        envy: {
          transport: 'stdio',
          command: 'node',
          env: { T: '{{fileProviderToken}}' },
          fileProvider: false,
        },
      }),
    ).toThrow(
      [
        'servers.tool.args.1: {{fileProviderUrl}} needs fileProvider: true on this server',
        'servers.api.headers.Authorization: {{fileProviderToken}} needs fileProvider: true on this server',
        'servers.envy.env.T: {{fileProviderToken}} needs fileProvider: true on this server',
      ].join('\n  '),
    );
  });

  it('refuses an unknown placeholder and an unknown fileProvider setting', () => {
    expect(
      hostWith({
        tool: { transport: 'stdio', command: 'node', fileProvider: true, args: ['{{fileProviderTokn}}'] },
      }),
    ).toThrow(/servers\.tool\.args\.0: an argument: the placeholders allowed are/);
    expect(
      hostWith({ tool: { transport: 'stdio', command: 'node', fileProvider: { compatible: true } } }),
    ).toThrow(/servers\.tool\.fileProvider/);
  });

  it('normalizes fileProvider to { enabled, compat }', () => {
    const registry = hostWith({
      a: { transport: 'stdio', command: 'node' },
      b: { transport: 'stdio', command: 'node', fileProvider: true, args: ['{{fileProviderToken}}'] },
      c: { transport: 'sse', url: 'http://127.0.0.1:1/sse', fileProvider: { compat: true } },
      d: { transport: 'http', url: 'http://127.0.0.1:1/mcp', fileProvider: {} },
    })().registry;
    expect(registry.list().map((server) => server.fileProvider)).toEqual([
      { enabled: false, compat: false },
      { enabled: true, compat: false },
      { enabled: true, compat: true },
      { enabled: true, compat: false },
    ]);
  });
});
