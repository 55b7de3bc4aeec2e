// The endpoint behind a real node:http server on 127.0.0.1: the official SDK client on the
// standard surface, VulniCheck's exact requests (replayed with fetch) on the compatibility
// surface, and the HTTP answers for auth, methods and bodies. Files come from a real FileStore and
// a real workspace directory in a temp dir.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connectProviderClient, FILE_PROVIDER_TOOL_NAMES } from '@ferry/test-helpers/file-provider-client';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProviderEndpoint, type ProviderEndpoint } from '../../src/file-provider/provider-endpoint.js';
import type { ProviderTokens } from '../../src/file-provider/provider-tokens.js';
import type { ProviderCallbackEvent } from '../../src/file-provider/provider-types.js';
import type { TestStorage } from '../pipeline/support/test-storage.js';
import { PROVIDER_SETTINGS, setUpProviderEndpoint } from './support/provider-endpoint-setup.js';

const HELLO = 'Hello, World!';

let storage: TestStorage;
let time: number;
let tokens: ProviderTokens;
let events: ProviderCallbackEvent[];
let base: string;
let http: Server;
let clients: Client[] = [];

async function listen(endpoint: ProviderEndpoint): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const match = /^\/api\/file-provider\/([^/?]+)\/(mcp|compat)(\?|$)/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    void endpoint.handle(req, res, { username: match[1] as string, compat: match[2] === 'compat' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/file-provider` };
}

beforeAll(async () => {
  time = Date.now();
  events = [];
  const setup = await setUpProviderEndpoint({ now: () => time, onCallback: (event) => events.push(event) });
  ({ storage, tokens } = setup);
  await mkdir(join(setup.workspace, 'src'));
  await writeFile(join(setup.workspace, 'hello.txt'), HELLO);
  ({ server: http, base } = await listen(setup.endpoint));
});

afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  events.length = 0;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await storage.close();
});

async function sdkClient(url: string, token: string): Promise<Client> {
  const client = await connectProviderClient(url, { token });
  clients.push(client);
  return client;
}

describe('standard surface (official SDK client)', () => {
  it('lists the seven tools and names itself ferry-file-provider 1.0.0', async () => {
    const { token } = tokens.mint({ username: 'alice', server: 'scanner' });
    const client = await sdkClient(`${base}/alice/mcp`, token);
    expect(client.getServerVersion()).toMatchObject({ name: 'ferry-file-provider', version: '1.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(FILE_PROVIDER_TOOL_NAMES);
    expect(tools.find((tool) => tool.name === 'read_file')?.inputSchema).toMatchObject({ type: 'object' });
  });

  it('reads a file as text and structuredContent, and reports the callback', async () => {
    const { token, grant } = tokens.mint({ username: 'alice', server: 'scanner' });
    const client = await sdkClient(`${base}/alice/mcp`, token);
    const result = await client.callTool({
      name: 'read_file',
      arguments: { file_path: '/tmp/alice/hello.txt', max_size: '1048576' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: HELLO }]);
    expect(result.structuredContent).toEqual({ result: HELLO });
    expect(events).toEqual([
      {
        username: 'alice',
        server: 'scanner',
        grantId: grant.grantId,
        tool: 'read_file',
        path: '/tmp/alice/hello.txt',
        ok: true,
        bytes: Buffer.byteLength(HELLO),
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('answers a missing file and bad arguments with the spec error object, isError', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    const client = await sdkClient(`${base}/alice/mcp`, token);
    const missing = await client.callTool({
      name: 'read_file',
      arguments: { file_path: '/tmp/alice/nope.txt' },
    });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error_type: 'FileNotFoundError' });
    const text = (missing.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(JSON.parse(text)).toEqual(missing.structuredContent);

    // Reaches the operations (not the SDK's schema check), which answer FileProviderError.
    const bad = await client.callTool({ name: 'read_file', arguments: { file_path: 42 } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({
      error_type: 'FileProviderError',
      error: expect.stringMatching(/^Invalid parameters: file_path/),
    });
    expect(events.map((event) => [event.tool, event.ok, event.errorType])).toEqual([
      ['read_file', false, 'FileNotFoundError'],
      ['read_file', false, 'FileProviderError'],
    ]);
  });

  it('is stateless and answers JSON, not an event stream', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    const response = await fetch(`${base}/alice/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({
      id: 7,
      result: {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'ferry-file-provider', version: '1.0.0' },
      },
    });
  });

  it('file_exists answers a plain boolean, never isError', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    const client = await sdkClient(`${base}/alice/mcp`, token);
    const yes = await client.callTool({ name: 'file_exists', arguments: { path: '/tmp/alice/hello.txt' } });
    const no = await client.callTool({ name: 'file_exists', arguments: { path: '/etc/passwd' } });
    expect([yes.structuredContent, yes.isError ?? false]).toEqual([{ result: true }, false]);
    expect([no.structuredContent, no.isError ?? false]).toEqual([{ result: false }, false]);
  });
});

// VulniCheck's HTTPTransport (vulnicheck/mcp/mcp_client.py): these headers, a uuid4 string id,
// params {} when none, no session, no Authorization header (the token rides in the URL).
async function vulnicheck(url: string, method: string, params?: Record<string, unknown>, notify = false) {
  const id = randomUUID();
  const message = notify
    ? { jsonrpc: '2.0', method, params: params ?? {} }
    : { jsonrpc: '2.0', id, method, params: params ?? {} };
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  const body =
    text === '' ? undefined : (JSON.parse(text) as { id?: unknown; result?: unknown; error?: unknown });
  if (body !== undefined && !notify) expect(body.id).toBe(id);
  return { status: response.status, type: response.headers.get('content-type'), body };
}

describe('compatibility surface (VulniCheck MCPClient)', () => {
  it('initializes, lists the tools and answers tools/call with the bare value', async () => {
    const { token, grant } = tokens.mint({ username: 'alice', server: 'vulnicheck' });
    const url = `${base}/alice/compat?access_token=${encodeURIComponent(token)}`;

    const init = await vulnicheck(url, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: { tools: {}, prompts: {}, resources: {} },
      clientInfo: { name: 'vulnicheck-mcp-passthrough', version: '1.0.0' },
    });
    expect(init.status).toBe(200);
    expect(init.type).toMatch(/^application\/json/);
    expect(init.body?.result).toEqual({
      protocolVersion: '2025-03-26',
      capabilities: { tools: {} },
      serverInfo: { name: 'ferry-file-provider', version: '1.0.0' },
    });

    const initialized = await vulnicheck(url, 'notifications/initialized', undefined, true);
    expect([initialized.status, initialized.body]).toEqual([202, undefined]);

    const list = await vulnicheck(url, 'tools/list');
    const { tools } = (list.body?.result ?? {}) as { tools: { name: string; description: string }[] };
    expect(tools).toHaveLength(7);
    for (const tool of tools) expect(typeof tool.description).toBe('string');

    const read = await vulnicheck(url, 'tools/call', {
      name: 'read_file',
      arguments: { file_path: '/tmp/alice/hello.txt', max_size: '1048576' },
    });
    expect(read.body?.result).toBe(HELLO);

    const missing = await vulnicheck(url, 'tools/call', {
      name: 'read_file',
      arguments: { file_path: '/tmp/alice/missing.txt' },
    });
    expect(missing.body?.result).toEqual({ error: expect.any(String), error_type: 'FileNotFoundError' });
    expect(Object.keys(missing.body?.result as object).sort()).toEqual(['error', 'error_type']);

    const exists = await vulnicheck(url, 'tools/call', {
      name: 'file_exists',
      arguments: { path: '/tmp/alice/src' },
    });
    expect(exists.body?.result).toBe(true);
    const listing = await vulnicheck(url, 'tools/call', {
      name: 'list_directory',
      arguments: { directory_path: '/tmp/alice' },
    });
    expect(listing.body?.result).toEqual(expect.arrayContaining(['/tmp/alice/hello.txt', '/tmp/alice/src']));

    expect(events.map((event) => [event.grantId, event.tool, event.ok])).toEqual([
      [grant.grantId, 'read_file', true],
      [grant.grantId, 'read_file', false],
      [grant.grantId, 'file_exists', true],
      [grant.grantId, 'list_directory', true],
    ]);
  });

  it('serves compat on /mcp for a token minted with compat', async () => {
    const { token } = tokens.mint({ username: 'alice', compat: true });
    const read = await vulnicheck(`${base}/alice/mcp?access_token=${token}`, 'tools/call', {
      name: 'read_file',
      arguments: { file_path: '/tmp/alice/hello.txt' },
    });
    expect(read.body?.result).toBe(HELLO);
  });

  it('answers JSON-RPC errors for unknown methods, batches and bad JSON', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    const url = `${base}/alice/compat?access_token=${token}`;
    expect((await vulnicheck(url, 'resources/list')).body?.error).toMatchObject({ code: -32601 });
    const post = (body: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const batch = await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    expect([batch.status, ((await batch.json()) as { error: { code: number } }).error.code]).toEqual([
      400, -32600,
    ]);
    const garbage = await post('{"jsonrpc":');
    expect([garbage.status, ((await garbage.json()) as { error: { code: number } }).error.code]).toEqual([
      400, -32700,
    ]);
  });
});

describe('HTTP answers', () => {
  const ping = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });

  it('401 invalid_token for a missing, foreign or revoked token; "expired" for an expired one', async () => {
    const alice = tokens.mint({ username: 'alice' });
    const bob = tokens.mint({ username: 'bob' });
    const revoked = tokens.mint({ username: 'alice' });
    tokens.revoke(revoked.grant.grantId);
    const url = `${base}/alice/compat`;
    const refused: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${bob.token}` },
      { authorization: `Bearer ${revoked.token}` },
    ];
    for (const headers of refused) {
      const response = await ping(url, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { message: 'Unauthorized: invalid token' },
      });
    }
    expect((await ping(url, { authorization: `Bearer ${alice.token}` })).status).toBe(200);
    expect((await ping(`${url}?access_token=${alice.token}`)).status).toBe(200);
    // RFC 6750: one method per request.
    const twice = await ping(`${url}?access_token=${alice.token}`, {
      authorization: `Bearer ${alice.token}`,
    });
    expect([twice.status, twice.headers.get('www-authenticate')]).toEqual([
      400,
      'Bearer error="invalid_request"',
    ]);

    const shortLived = tokens.mint({ username: 'alice', ttlSeconds: 5 });
    time += 6_000;
    const expired = await ping(url, { authorization: `Bearer ${shortLived.token}` });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="token expired"',
    );
    expect(events).toEqual([]);
  });

  it('405 with Allow: POST for GET and DELETE', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${base}/alice/mcp`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST']);
    }
  });

  it('413 for a body over 1 MiB', async () => {
    const { token } = tokens.mint({ username: 'alice' });
    const response = await fetch(`${base}/alice/compat?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(1024 * 1024) },
      }),
    });
    expect(response.status).toBe(413);
  });

  it('404 when the provider is off', async () => {
    const off = createProviderEndpoint({
      tokens,
      settings: { ...PROVIDER_SETTINGS, enabled: false },
      scopeFor: () => Promise.reject(new Error('not reached')),
    });
    const { server, base: offBase } = await listen(off);
    try {
      const { token } = tokens.mint({ username: 'alice' });
      expect((await ping(`${offBase}/alice/mcp`, { authorization: `Bearer ${token}` })).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
