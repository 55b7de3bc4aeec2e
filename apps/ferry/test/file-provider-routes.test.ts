// The file provider as a real Ferry serves it: the config section and its variables, the endpoint
// (authenticated by the provider's token, not by the user), the user's token API, and the
// official SDK client reading a file uploaded to My Files through it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectProviderClient, FILE_PROVIDER_TOOL_NAMES } from '@ferry/test-helpers/file-provider-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';
import { asUser, http, PROXY_SECRET, uploadOk } from './support/start-app.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-file-provider-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

let configs = 0;
/** A Ferry in proxy mode (two users: alice and bob), with `fileProvider` as given in its config file. */
async function start(
  fileProvider: Record<string, unknown> | undefined,
  env: NodeJS.ProcessEnv = {},
  log?: string[],
) {
  const cwd = join(dir, `ferry-${++configs}`);
  const path = join(dir, `config-${configs}.json`);
  await writeFile(
    path,
    JSON.stringify({
      auth: { mode: 'proxy', proxySecret: PROXY_SECRET },
      ...(fileProvider === undefined ? {} : { fileProvider }),
    }),
  );
  return startServer({
    cwd: dir,
    env: { FERRY_DATA_DIR: cwd, ...env },
    configPath: path,
    port: 0,
    // The default log level (warn): the audit lines must be written all the same.
    ...(log ? { logStream: { write: (line: string) => void log.push(line) } } : {}),
  });
}

interface Minted {
  token: string;
  grantId: string;
  expiresAt: string;
  url: string;
  compatUrl: string;
}

async function mint(
  server: RunningServer,
  user: string,
  body: Record<string, unknown> = {},
): Promise<Minted> {
  const answer = await http(server.url, '/api/file-provider/tokens', {
    method: 'POST',
    headers: { ...asUser(user), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.json<Minted>();
}

/** One JSON-RPC message POSTed by hand. */
function rpc(server: RunningServer, path: string, message: unknown, headers: Record<string, string> = {}) {
  return http(server.url, path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });
}

const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

describe('file provider off (the default)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start(undefined);
  });
  afterAll(async () => server.close());

  it('says so at startup, and its routes answer 404 in the usual envelope', async () => {
    expect(server.summary).toContain('  file provider  off');
    expect(server.fileProvider).toBeUndefined();
    const endpoint = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS);
    expect(endpoint.status).toBe(404);
    expect(endpoint.json()).toMatchObject({ meta_data: { is_error: true, error_code: 'E_NOT_FOUND' } });
    const tokens = await http(server.url, '/api/file-provider/tokens', {
      method: 'POST',
      headers: { ...asUser('alice'), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(tokens.status).toBe(404);
    expect(tokens.json()).toMatchObject({ meta_data: { error_code: 'E_NOT_FOUND' } });
  });
});

describe('file provider on (config file section)', () => {
  let server: RunningServer;
  const REPORT = 'Quarterly report\nline two: ünïcödé\n';
  const log: string[] = [];
  beforeAll(async () => {
    server = await start({ enabled: true, max_file_size: 1_048_576 }, {}, log);
    await uploadOk(server.url, 'report.txt', REPORT, asUser('alice'));
  });
  afterAll(async () => server.close());

  it('names the endpoint in the startup summary', () => {
    expect(server.config.fileProvider).toMatchObject({ enabled: true, maxFileSize: 1_048_576 });
    expect(server.summary).toContain(
      `  file provider  on: ${server.url}/api/file-provider/{user}/mcp (and /compat)`,
    );
  });

  it('mints a token for the signed-in user, and the SDK client reads their upload with it', async () => {
    const minted = await mint(server, 'alice', { label: 'my laptop' });
    expect(minted.url).toBe(`${server.url}/api/file-provider/alice/mcp`);
    expect(minted.compatUrl).toBe(`${server.url}/api/file-provider/alice/compat`);
    const ttl = Date.parse(minted.expiresAt) - Date.now();
    // token_ttl_seconds' default: an hour.
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);

    const client = await connectProviderClient(minted.url, { token: minted.token });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(FILE_PROVIDER_TOOL_NAMES);
      const read = await client.callTool({
        name: 'read_file',
        arguments: { file_path: '/tmp/alice/my_files/uploaded/report.txt' },
      });
      expect(read.isError).toBeFalsy();
      expect(read.structuredContent).toEqual({ result: REPORT });
      expect(read.content).toEqual([{ type: 'text', text: REPORT }]);
    } finally {
      await client.close();
    }
  });

  it('takes the token as ?access_token= too (a client that only takes a URL)', async () => {
    const minted = await mint(server, 'alice');
    const client = await connectProviderClient(
      `${minted.url}?access_token=${encodeURIComponent(minted.token)}`,
    );
    try {
      const found = await client.callTool({
        name: 'file_exists',
        arguments: { path: '/tmp/alice/my_files/uploaded/report.txt' },
      });
      expect(found.structuredContent).toEqual({ result: true });
    } finally {
      await client.close();
    }
  });

  it('logs one audit line per callback: who, what, how it went; never the content or the token', async () => {
    const minted = await mint(server, 'alice');
    const path = '/tmp/alice/my_files/uploaded/report.txt';
    const client = await connectProviderClient(
      `${minted.url}?access_token=${encodeURIComponent(minted.token)}`,
    );
    try {
      await client.callTool({ name: 'read_file', arguments: { file_path: path } });
      await client.callTool({ name: 'read_file', arguments: { file_path: '/etc/passwd' } });
    } finally {
      await client.close();
    }
    const audit = log
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'file provider callback' && line.tool === 'read_file');
    expect(audit).toContainEqual(
      expect.objectContaining({ user: 'alice', path, ok: true, bytes: Buffer.byteLength(REPORT) }),
    );
    expect(audit).toContainEqual(
      expect.objectContaining({ user: 'alice', ok: false, errorType: 'PermissionError' }),
    );
    for (const line of audit) expect(line.durationMs).toEqual(expect.any(Number));
    const text = log.join('\n');
    expect(text).not.toContain('Quarterly');
    expect(text).not.toContain(minted.token);
    expect(text).not.toContain(encodeURIComponent(minted.token));
  });

  it('answers the bare value on /compat', async () => {
    const minted = await mint(server, 'alice');
    const answer = await rpc(
      server,
      '/api/file-provider/alice/compat',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { file_path: '/tmp/alice/my_files/uploaded/report.txt' } },
      },
      { authorization: `Bearer ${minted.token}` },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json()).toEqual({ jsonrpc: '2.0', id: 7, result: REPORT });
  });

  it("refuses another user's token, a missing one and a made-up one with 401 and WWW-Authenticate", async () => {
    const bobs = await mint(server, 'bob');
    const refused: Record<string, string>[] = [
      { authorization: `Bearer ${bobs.token}` },
      {},
      { authorization: 'Bearer nonsense' },
    ];
    for (const headers of refused) {
      const answer = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS, headers);
      expect(answer.status).toBe(401);
      expect(String(answer.headers['www-authenticate'])).toMatch(/^Bearer/);
      expect(answer.text).not.toContain('Quarterly');
    }
    // The same token is good on its own user's endpoint.
    const own = await rpc(server, '/api/file-provider/bob/mcp', LIST_TOOLS, {
      authorization: `Bearer ${bobs.token}`,
    });
    expect(own.status).toBe(200);
  });

  it('lists the user’s own grants without tokens, and revokes only their own', async () => {
    const minted = await mint(server, 'alice', { label: 'revoke me', compat: true, ttlSeconds: 120 });
    const listed = await http(server.url, '/api/file-provider/tokens', { headers: asUser('alice') });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(minted.token);
    const mine = listed.json<{ items: Record<string, unknown>[] }>().items;
    expect(mine).toContainEqual({
      grantId: minted.grantId,
      compat: true,
      expiresAt: minted.expiresAt,
      label: 'revoke me',
    });
    const bobsList = await http(server.url, '/api/file-provider/tokens', { headers: asUser('bob') });
    expect(bobsList.text).not.toContain(minted.grantId);

    const byBob = await http(server.url, `/api/file-provider/tokens/${minted.grantId}`, {
      method: 'DELETE',
      headers: asUser('bob'),
    });
    expect(byBob.status).toBe(404);
    const stillGood = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS, {
      authorization: `Bearer ${minted.token}`,
    });
    expect(stillGood.status).toBe(200);

    const byAlice = await http(server.url, `/api/file-provider/tokens/${minted.grantId}`, {
      method: 'DELETE',
      headers: asUser('alice'),
    });
    expect(byAlice.status).toBe(204);
    const revoked = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS, {
      authorization: `Bearer ${minted.token}`,
    });
    expect(revoked.status).toBe(401);
    const again = await http(server.url, '/api/file-provider/tokens', { headers: asUser('alice') });
    expect(again.text).not.toContain(minted.grantId);
  });

  it('holds at most 100 live tokens a user minted: the next is 409 until one is revoked', async () => {
    const minted = [];
    for (let i = 0; i < 100; i++) minted.push(await mint(server, 'dave'));
    const refused = await http(server.url, '/api/file-provider/tokens', {
      method: 'POST',
      headers: { ...asUser('dave'), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(409);
    expect(refused.json<{ results: { error: string } }>().results.error).toMatch(
      /100 live file-provider tokens/,
    );
    const first = minted[0] as Minted;
    const revoked = await http(server.url, `/api/file-provider/tokens/${first.grantId}`, {
      method: 'DELETE',
      headers: asUser('dave'),
    });
    expect(revoked.status).toBe(204);
    await mint(server, 'dave');
  });

  it("a deleted user's tokens die with them", async () => {
    const minted = await mint(server, 'carol');
    const deleted = await http(server.url, '/api/users/carol', {
      method: 'DELETE',
      headers: asUser('carol'),
    });
    expect(deleted.status, deleted.text).toBe(200);
    const after = await rpc(server, '/api/file-provider/carol/mcp', LIST_TOOLS, {
      authorization: `Bearer ${minted.token}`,
    });
    expect(after.status).toBe(401);
  });

  it('needs a signed-in user for the token API, and refuses a TTL over a day', async () => {
    const anonymous = await http(server.url, '/api/file-provider/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const tooLong = await http(server.url, '/api/file-provider/tokens', {
      method: 'POST',
      headers: { ...asUser('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ ttlSeconds: 86_401 }),
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('ttlSeconds');
  });

  it('is stateless: GET and DELETE are 405; a bad username is 400; a body over 1 MiB is 413', async () => {
    const minted = await mint(server, 'alice');
    const auth = { authorization: `Bearer ${minted.token}` };
    for (const method of ['GET', 'DELETE']) {
      const answer = await http(server.url, '/api/file-provider/alice/mcp', { method, headers: auth });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.json()).toMatchObject({ meta_data: { error_code: 'E_METHOD_NOT_ALLOWED' } });
    }
    const badName = await rpc(server, '/api/file-provider/..%2Falice/mcp', LIST_TOOLS, auth);
    expect(badName.status).toBe(400);
    const big = await rpc(
      server,
      '/api/file-provider/alice/mcp',
      { ...LIST_TOOLS, params: { padding: 'x'.repeat(1024 * 1024) } },
      auth,
    );
    expect(big.status).toBe(413);
  });

  it('is not behind the browser guards: the token decides, whatever Origin says', async () => {
    const minted = await mint(server, 'alice');
    const answer = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS, {
      authorization: `Bearer ${minted.token}`,
      origin: 'http://elsewhere.example',
    });
    expect(answer.status).toBe(200);
    // Without the token the same request is still refused.
    const without = await rpc(server, '/api/file-provider/alice/mcp', LIST_TOOLS, {
      origin: 'http://elsewhere.example',
    });
    expect(without.status).toBe(401);
  });
});

describe('file provider settings', () => {
  it('FERRY_FILE_PROVIDER_* win over the file', async () => {
    const server = await start(
      { enabled: false, enable_optional_tools: true },
      {
        FERRY_FILE_PROVIDER_ENABLED: 'yes',
        FERRY_FILE_PROVIDER_OPTIONAL_TOOLS: 'false',
        FERRY_FILE_PROVIDER_MAX_FILE_SIZE: '2048',
        FERRY_FILE_PROVIDER_TIMEOUT_SECONDS: '5',
        FERRY_FILE_PROVIDER_ALLOWED_PATHS: '/tmp/{{user}}/my_files, /tmp/{{user}}/src',
        FERRY_FILE_PROVIDER_BLOCKED_PATHS: '/tmp/{{user}}/src/secrets',
      },
    );
    try {
      expect(server.config.fileProvider).toMatchObject({
        enabled: true,
        enableOptionalTools: false,
        maxFileSize: 2048,
        timeoutSeconds: 5,
        allowedPaths: ['/tmp/{{user}}/my_files', '/tmp/{{user}}/src'],
        blockedPaths: ['/tmp/{{user}}/src/secrets'],
      });
      const minted = await mint(server, 'alice');
      const client = await connectProviderClient(minted.url, { token: minted.token });
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(5);
        expect(tools.map((tool) => tool.name)).not.toContain('find_files');
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });

  it('refuses to start on a bad value, naming the key or the variable', async () => {
    await expect(start(true as never)).rejects.toThrow(/fileProvider: must be an object/);
    await expect(start({ enabled: true, max_file_size: -1 })).rejects.toThrow(/fileProvider\.max_file_size/);
    await expect(start({ enabled: true, max_file_sise: 10 })).rejects.toThrow(
      /fileProvider\.max_file_sise: unknown setting \(did you mean "max_file_size"\?\)/,
    );
    await expect(start({}, { FERRY_FILE_PROVIDER_TIMEOUT_SECONDS: 'soon' })).rejects.toThrow(
      /FERRY_FILE_PROVIDER_TIMEOUT_SECONDS \(fileProvider\.timeout_seconds\): expected a number, got "soon"/,
    );
    await expect(start({}, { FERRY_FILE_PROVIDER_ENABLED: 'maybe' })).rejects.toThrow(
      /FERRY_FILE_PROVIDER_ENABLED \(fileProvider\.enabled\): expected true or false/,
    );
  });
});
