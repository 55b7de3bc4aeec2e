// Per-user Unix sockets: the official SDK client reaching the provider through unixSocketFetch,
// the token still required (and the socket user's), file modes, stale and live socket files, and
// the path length limit. Real FileStore, real workspace, real sockets in a short temp dir.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unixSocketFetch } from '@ferry/server-kit';
import { connectProviderClient } from '@ferry/test-helpers/file-provider-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderEndpoint } from '../../src/file-provider/provider-endpoint.js';
import { createProviderSockets, type ProviderSockets } from '../../src/file-provider/provider-sockets.js';
import type { ProviderTokens } from '../../src/file-provider/provider-tokens.js';
import type { TestStorage } from '../pipeline/support/test-storage.js';
import { PROVIDER_SETTINGS, setUpProviderEndpoint } from './support/provider-endpoint-setup.js';

let storage: TestStorage;
let sockDir: string;
let tokens: ProviderTokens;
let sockets: ProviderSockets;

beforeAll(async () => {
  const setup = await setUpProviderEndpoint();
  ({ storage, tokens } = setup);
  await writeFile(join(setup.workspace, 'hello.txt'), 'Hello over a socket');
  // Socket paths are limited to 107 bytes: a short base, not the test's own temp dir.
  sockDir = join(await mkdtemp(join(tmpdir(), 'fps-')), 'run');
  sockets = createProviderSockets({ dir: sockDir, endpoint: setup.endpoint });
});

afterAll(async () => {
  await sockets.close();
  await rm(join(sockDir, '..'), { recursive: true, force: true });
  await storage.close();
});

describe('provider sockets', () => {
  it('serves the SDK client over the user socket, at the HTTP URL path', async () => {
    const path = await sockets.socketFor('alice');
    expect(path).toBe(join(sockDir, 'alice.sock'));
    expect(await sockets.socketFor('alice')).toBe(path);
    expect((await stat(sockDir)).mode & 0o777).toBe(0o711);
    const mode = await stat(path);
    expect([mode.isSocket(), mode.mode & 0o777]).toEqual([true, 0o666]);

    const { token } = tokens.mint({ username: 'alice' });
    const client = await connectProviderClient('http://ferry.local/api/file-provider/alice/mcp', {
      token,
      fetch: unixSocketFetch(path),
    });
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'ferry-file-provider', version: '1.0.0' });
      expect((await client.listTools()).tools).toHaveLength(7);
      const read = await client.callTool({
        name: 'read_file',
        arguments: { file_path: '/tmp/alice/hello.txt' },
      });
      expect(read.structuredContent).toEqual({ result: 'Hello over a socket' });
    } finally {
      await client.close();
    }
  });

  it('requires a token of the socket user, and serves /compat', async () => {
    const path = await sockets.socketFor('alice');
    const post = (url: string, token?: string) =>
      unixSocketFetch(path)(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'a',
          method: 'tools/call',
          params: { name: 'read_file', arguments: { file_path: '/tmp/alice/hello.txt' } },
        }),
      });
    expect((await post('http://localhost/compat')).status).toBe(401);
    expect((await post('http://localhost/compat', tokens.mint({ username: 'bob' }).token)).status).toBe(401);
    const ok = await post('http://localhost/compat', tokens.mint({ username: 'alice' }).token);
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 'a', result: 'Hello over a socket' });
    expect((await post('http://localhost/other', tokens.mint({ username: 'alice' }).token)).status).toBe(404);
  });

  it('replaces a stale socket file, refuses a live one or a regular file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fps-'));
    const stale = join(dir, 'carol.sock');
    // A process killed while listening leaves its socket file behind.
    await promisify(execFile)(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]).catch(() => undefined);
    expect((await stat(stale)).isSocket()).toBe(true);

    const endpoint = createProviderEndpoint({
      tokens,
      settings: PROVIDER_SETTINGS,
      scopeFor: () => Promise.reject(),
    });
    const first = createProviderSockets({ dir, endpoint });
    const second = createProviderSockets({ dir, endpoint });
    try {
      expect(await first.socketFor('carol')).toBe(stale);
      await expect(second.socketFor('carol')).rejects.toThrow(/in use by another process/);
      await writeFile(join(dir, 'dave.sock'), 'not a socket');
      await expect(first.socketFor('dave')).rejects.toThrow(/not a socket/);
      await expect(first.socketFor('../etc')).rejects.toThrow(/not a username/);
    } finally {
      await first.close();
      await second.close();
    }
    await expect(stat(stale)).rejects.toThrow(/ENOENT/);
    await rm(dir, { recursive: true, force: true });
  });

  it('says so when the socket path is too long', async () => {
    const endpoint = createProviderEndpoint({
      tokens,
      settings: PROVIDER_SETTINGS,
      scopeFor: () => Promise.reject(),
    });
    const long = createProviderSockets({ dir: join(tmpdir(), 'x'.repeat(100)), endpoint });
    await expect(long.socketFor('alice')).rejects.toThrow(/Unix sockets allow 107/);
    await long.close();
  });
});

describe('unixSocketFetch', () => {
  it('streams the response body as it arrives', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fps-'));
    const path = join(dir, 'stream.sock');
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = createServer((req, res) => {
      res.writeHead(200, {
        'content-type': 'text/plain',
        'x-path': req.url ?? '',
        'x-host': req.headers.host ?? '',
      });
      res.write('first ');
      // The rest only comes once the client has read the first chunk: a buffering fetch would hang.
      void released.then(() => res.end('second'));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    await chmod(path, 0o600);
    try {
      const response = await unixSocketFetch(path)('http://ferry.local:8080/a/b?c=1');
      expect(response.status).toBe(200);
      expect(response.headers.get('x-path')).toBe('/a/b?c=1');
      expect(response.headers.get('x-host')).toBe('ferry.local:8080');
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      expect(Buffer.from(first.value as Uint8Array).toString()).toBe('first ');
      release();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        rest += Buffer.from(chunk.value).toString();
      }
      expect(rest).toBe('second');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects with the abort reason when aborted before the answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fps-'));
    const path = join(dir, 'slow.sock');
    const server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const controller = new AbortController();
      const pending = unixSocketFetch(path)('http://localhost/', { signal: controller.signal });
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow('stop');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
