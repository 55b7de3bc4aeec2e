import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import { type EverythingSse, startEverythingSse } from '../support/everything-sse.js';
import { createFixtureServer } from '../support/fixture-server.js';
import { startHttpMcpServer, type TestHttpServer } from '../support/http-server.js';
import { never, poolPerTest, textOf } from '../support/pool-per-test.js';

// Remote servers: the fixture server over Streamable HTTP in this process, and the published
// server-everything in its legacy HTTP+SSE mode (SDK v2 has no SSE server transport).

const start = poolPerTest();

describe('Streamable HTTP', () => {
  let http: TestHttpServer;
  beforeAll(async () => {
    http = await startHttpMcpServer(() => createFixtureServer('fixture-http'));
  });
  afterAll(() => http.close());

  const remote = (): ServerConfigInput => ({
    transport: 'http',
    url: http.url,
    headers: { 'X-User': '{{user}}', 'X-Client': 'ferry' },
  });

  it('opens one session per user, sending that user in the headers', async () => {
    const { pool } = start({ remote: remote() });
    const alice = await pool.get('remote', 'alice');
    const bob = await pool.get('remote', 'bob');
    expect(alice.kind).toBe('remote');
    expect(alice.pid).toBeUndefined();
    expect(await pool.get('remote', 'alice')).toBe(alice);
    expect(bob).not.toBe(alice);
    await alice.listTools();
    await bob.listTools();
    const users = new Set(http.requests.map((headers) => headers['x-user']));
    expect(users).toEqual(new Set(['alice', 'bob']));
    expect(http.requests.every((headers) => headers['x-client'] === 'ferry')).toBe(true);
    expect(http.sessions.size).toBe(2);
  });

  it('lists tools, calls one and forwards progress', async () => {
    const { pool } = start({ remote: remote() });
    const connection = await pool.get('remote', 'alice');
    expect((await connection.listTools()).map((t) => t.name)).toContain('progress');
    const updates: unknown[] = [];
    const result = await connection.callTool(
      { name: 'progress', arguments: { steps: 2 } },
      { signal: never(), onProgress: (update) => updates.push(update) },
    );
    expect(textOf(result)).toBe('done');
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'step 1/2' },
      { progress: 2, total: 2, message: 'step 2/2' },
    ]);
  });

  it('refreshes the cached tool list on list_changed', async () => {
    const { pool, log } = start({ remote: remote() });
    const connection = await pool.get('remote', 'alice');
    const before = await connection.listTools();
    expect(await connection.listTools()).toBe(before);
    await connection.callTool(
      { name: 'add_tool', arguments: { name: 'added_over_http' } },
      { signal: never() },
    );
    await log.waitFor((e) => e.type === 'tools-changed', { past: true });
    expect((await connection.listTools()).map((t) => t.name)).toContain('added_over_http');
  });

  it('kill() ends the session (no process); the next get opens a new one', async () => {
    const { pool, log } = start({ remote: remote() });
    const first = await pool.get('remote', 'alice');
    await first.listTools();
    const sessionsBefore = http.sessions.size;
    await first.kill('timeout');
    expect(log.events.find((e) => e.type === 'closed')).toMatchObject({ reason: 'killed', kind: 'remote' });
    expect(http.sessions.size).toBe(sessionsBefore - 1);
    const second = await pool.get('remote', 'alice');
    expect(second).not.toBe(first);
    expect(textOf(await second.callTool({ name: 'pid', arguments: {} }, { signal: never() }))).toBe(
      String(process.pid),
    );
  });
});

describe('legacy HTTP+SSE (server-everything sse)', () => {
  let sse: EverythingSse;
  beforeAll(async () => {
    sse = await startEverythingSse();
  });
  afterAll(() => sse.close());

  it('lists tools, calls echo and forwards progress', async () => {
    const { pool } = start({ legacy: { transport: 'sse', url: sse.url, headers: { 'X-User': '{{user}}' } } });
    const connection = await pool.get('legacy', 'alice');
    expect(connection.kind).toBe('remote');
    expect((await connection.listTools()).map((t) => t.name)).toContain('echo');
    const echo = await connection.callTool(
      { name: 'echo', arguments: { message: 'over sse' } },
      { signal: never() },
    );
    expect(textOf(echo)).toBe('Echo: over sse');
    const updates: unknown[] = [];
    await connection.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
      { signal: never(), onProgress: (update) => updates.push(update) },
    );
    expect(updates).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });
});
