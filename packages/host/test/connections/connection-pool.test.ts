import { isGone, waitUntilGone } from '@ferry/test-helpers/processes';
import { describe, expect, it } from 'vitest';
import type { ToolConnection } from '../../src/connections/connection.js';
import type { ConnectionEvent } from '../../src/connections/connection-events.js';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import type { EventLog } from '../support/event-log.js';
import { never, poolPerTest, textOf } from '../support/pool-per-test.js';
import { fixtureServer } from '../support/servers.js';

// The pool against the fixture server over stdio (a real process per connection): reuse,
// per-user processes, idle reaping, restart after a crash, process-group kill, large results,
// tools/list caching, progress and cancellation.

const startPool = poolPerTest();
const start = (servers: Record<string, ServerConfigInput> = { fixture: fixtureServer() }) =>
  startPool(servers);
const call = async (connection: ToolConnection, name: string, args: Record<string, unknown> = {}) =>
  textOf(await connection.callTool({ name, arguments: args }, { signal: never() }));
const closedEvent = (log: EventLog, pid: number | undefined) =>
  log.waitFor((e) => e.type === 'closed' && e.pid === pid, { past: true }) as Promise<
    Extract<ConnectionEvent, { type: 'closed' }>
  >;

describe('connection pool: local servers over stdio', () => {
  it('starts one process per (server, user) and reuses it across calls and concurrent gets', async () => {
    const { pool, log } = start();
    const [a, b, c] = await Promise.all([
      pool.get('fixture', 'alice'),
      pool.get('fixture', 'alice'),
      pool.get('fixture', 'alice'),
    ]);
    expect(a.kind).toBe('local');
    expect(b).toBe(a);
    expect(c).toBe(a);
    const pid = await call(a, 'pid');
    expect(Number(pid)).toBe(a.pid);
    const again = await pool.get('fixture', 'alice');
    expect(again).toBe(a);
    expect(await call(again, 'pid')).toBe(pid);
    expect(log.events.filter((e) => e.type === 'connected')).toHaveLength(1);
  });

  it('starts at most maxConcurrentStarts local servers at once; the rest wait their turn', async () => {
    const timeline: string[] = [];
    const { pool } = startPool(
      { fixture: fixtureServer() },
      {
        onEvent: (event) => {
          if (event.type === 'connected') timeline.push(`connected ${event.user}`);
        },
        maxConcurrentStarts: 1,
        launcher: (server, user) => {
          timeline.push(`launch ${user}`);
          return {
            command: server.command,
            args: [...server.args],
            env: { ...process.env } as Record<string, string>,
          };
        },
      },
    );
    const users = ['u1', 'u2', 'u3'];
    const connections = await Promise.all(users.map((user) => pool.get('fixture', user)));
    expect(new Set(connections.map((c) => c.pid)).size).toBe(3);
    // With one slot, each launch waits until the previous server has connected.
    expect(timeline).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) {
      const user = timeline[i]?.replace('launch ', '');
      expect(timeline.slice(i, i + 2)).toEqual([`launch ${user}`, `connected ${user}`]);
    }
  });

  it('gives every user their own process', async () => {
    const { pool } = start();
    const alice = await pool.get('fixture', 'alice');
    const bob = await pool.get('fixture', 'bob');
    expect(alice).not.toBe(bob);
    expect(await call(alice, 'pid')).not.toBe(await call(bob, 'pid'));
    expect(alice.pid).not.toBe(bob.pid);
  });

  it('reaps a connection after idleSeconds without calls, and starts a new one on the next get', async () => {
    const { pool, log } = start({ fixture: fixtureServer({ idleSeconds: 0.3 }) });
    const first = await pool.get('fixture', 'alice');
    await call(first, 'pid');
    const closed = await closedEvent(log, first.pid);
    expect(closed).toMatchObject({ reason: 'idle', user: 'alice' });
    expect(isGone(first.pid as number)).toBe(true);
    const second = await pool.get('fixture', 'alice');
    expect(second.pid).not.toBe(first.pid);
    expect(await call(second, 'pid')).toBe(String(second.pid));
  });

  it('does not reap a connection while a call is running', async () => {
    const { pool, log } = start({ fixture: fixtureServer({ idleSeconds: 0.1 }) });
    const connection = await pool.get('fixture', 'alice');
    const result = await call(connection, 'progress', { steps: 4, delayMs: 100 });
    expect(result).toBe('done');
    expect(log.events.filter((e) => e.type === 'closed')).toEqual([]);
    await closedEvent(log, connection.pid);
  });

  it('restarts a server on the next get after it crashed', async () => {
    const { pool, log } = start();
    const first = await pool.get('fixture', 'alice');
    await expect(call(first, 'crash')).rejects.toMatchObject({
      code: 'E_TOOL_UNAVAILABLE',
      message: 'MCP server "fixture" exited with code 3 during the call',
    });
    expect(await closedEvent(log, first.pid)).toMatchObject({ reason: 'exited', exitCode: 3 });
    await expect(call(first, 'pid')).rejects.toThrowError(/closed; get a new one/);
    const second = await pool.get('fixture', 'alice');
    expect(second.pid).not.toBe(first.pid);
    expect(await call(second, 'pid')).toBe(String(second.pid));
  });

  it('kill() ends the process group, grandchildren included; the next get starts a fresh process', async () => {
    const { pool, log } = start();
    const first = await pool.get('fixture', 'alice');
    const grandchild = Number(await call(first, 'spawn_child'));
    expect(isGone(grandchild)).toBe(false);
    const pending = first.callTool({ name: 'wait_for_cancel', arguments: {} }, { signal: never() });
    // Awaited from now on: the call may fail while kill() runs (its request written to a process
    // already gone: EPIPE), which must not count as an unhandled rejection.
    const ended = expect(pending).rejects.toMatchObject({
      code: 'E_TOOL_UNAVAILABLE',
      message: 'MCP server "fixture" was stopped (timeout after 30 s) during the call',
    });
    await first.kill('timeout after 30 s');
    // Another call on the same connection learns why it ended.
    await ended;
    expect(isGone(first.pid as number)).toBe(true);
    await waitUntilGone(grandchild);
    expect(await closedEvent(log, first.pid)).toMatchObject({
      reason: 'killed',
      detail: 'timeout after 30 s',
      signal: 'SIGKILL',
    });
    const second = await pool.get('fixture', 'alice');
    expect(second.pid).not.toBe(first.pid);
  });

  it('passes a 50 MB tool result', async () => {
    const { pool } = start();
    const connection = await pool.get('fixture', 'alice');
    const text = await call(connection, 'big', { bytes: 50 * 1024 * 1024 });
    expect(text.length).toBe(50 * 1024 * 1024);
  });

  it('caches tools/list until notifications/tools/list_changed', async () => {
    const { pool, log } = start();
    const connection = await pool.get('fixture', 'alice');
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toContain('pid');
    expect(await connection.listTools()).toBe(tools);
    await call(connection, 'add_tool', { name: 'added_later' });
    await log.waitFor((e) => e.type === 'tools-changed', { past: true });
    const refreshed = await connection.listTools();
    expect(refreshed).not.toBe(tools);
    expect(refreshed.map((t) => t.name)).toContain('added_later');
  });

  it('forwards progress notifications with their messages', async () => {
    const { pool } = start();
    const connection = await pool.get('fixture', 'alice');
    const updates: unknown[] = [];
    const result = await connection.callTool(
      { name: 'progress', arguments: { steps: 3 } },
      { signal: never(), onProgress: (update) => updates.push(update) },
    );
    expect(textOf(result)).toBe('done');
    expect(updates).toEqual([
      { progress: 1, total: 3, message: 'step 1/3' },
      { progress: 2, total: 3, message: 'step 2/3' },
      { progress: 3, total: 3, message: 'step 3/3' },
    ]);
  });

  it('aborting sends notifications/cancelled and rejects with the abort reason', async () => {
    const { pool } = start();
    const connection = await pool.get('fixture', 'alice');
    const controller = new AbortController();
    const reason = new Error('cancelled by the watchdog');
    // Cancelled once the server reports it is running the call.
    const pending = connection.callTool(
      { name: 'wait_for_cancel', arguments: {} },
      { signal: controller.signal, onProgress: () => controller.abort(reason) },
    );
    await expect(pending).rejects.toBe(reason);
    // `cancelled` answers once the server saw the cancellation of wait_for_cancel.
    expect(await call(connection, 'cancelled')).toBe('yes');
    // The process survives a cancel.
    expect(await call(connection, 'pid')).toBe(String(connection.pid));
  });

  it('rejects invalid usernames, unknown and disabled servers', async () => {
    const { pool } = start({ fixture: fixtureServer(), off: fixtureServer({ enabled: false }) });
    await expect(pool.get('fixture', '../alice')).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
    await expect(pool.get('missing', 'alice')).rejects.toThrowError(/Unknown MCP server "missing"/);
    await expect(pool.get('off', 'alice')).rejects.toThrowError(/MCP server "off" is disabled/);
  });

  it('reports a server that cannot start, with its stderr, and tries again on the next get', async () => {
    const { pool, log } = start({
      broken: {
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', "console.error('missing API key'); process.exit(2)"],
      },
      absent: { transport: 'stdio', command: 'no-such-command-ferry' },
    });
    await expect(pool.get('broken', 'alice')).rejects.toThrowError(
      /^Could not connect to MCP server "broken": [^\n]*; stderr: missing API key$/,
    );
    await expect(pool.get('broken', 'alice')).rejects.toMatchObject({ code: 'E_TOOL_UNAVAILABLE' });
    expect(log.events.filter((e) => e.type === 'closed' && e.reason === 'failed')).toHaveLength(2);
    await expect(pool.get('absent', 'alice')).rejects.toThrowError(/ENOENT/);
  });

  it("closeUser() stops that user's processes, a start in progress included, and no one else's", async () => {
    const { pool, log } = start({ fixture: fixtureServer(), other: fixtureServer() });
    const alice = await pool.get('fixture', 'alice');
    const bob = await pool.get('fixture', 'bob');
    // Started but not awaited: closeUser waits for it and closes it too.
    const starting = pool.get('other', 'alice');
    expect(await pool.closeUser('alice')).toBe(2);
    const startedThenClosed = await starting;
    for (const pid of [alice.pid, startedThenClosed.pid]) {
      expect(isGone(pid as number)).toBe(true);
      expect((await closedEvent(log, pid)).reason).toBe('released');
    }
    expect(isGone(bob.pid as number)).toBe(false);
    expect(await call(bob, 'pid')).toBe(String(bob.pid));
    // Alice's next call starts a fresh process.
    const again = await pool.get('fixture', 'alice');
    expect(again.pid).not.toBe(alice.pid);
    expect(await call(again, 'pid')).toBe(String(again.pid));
    expect(await pool.closeUser('nobody')).toBe(0);
  });

  it('close() stops every process and refuses new connections', async () => {
    const { pool } = start();
    const alice = await pool.get('fixture', 'alice');
    const bob = await pool.get('fixture', 'bob');
    await pool.close();
    expect(isGone(alice.pid as number)).toBe(true);
    expect(isGone(bob.pid as number)).toBe(true);
    await expect(pool.get('fixture', 'alice')).rejects.toThrowError(/pool is closed/);
  });
});

describe('connection pool: renewal of what a connection was given at start', () => {
  it('past renewAt, new calls get a new connection; the old one finishes its running call, then closes', async () => {
    let clock = 1_000_000;
    const released: number[] = [];
    let opened = 0;
    const { pool, log } = startPool(
      { fixture: fixtureServer() },
      {
        now: () => clock,
        extras: () => {
          opened += 1;
          const n = opened;
          return {
            placeholders: {},
            env: {},
            sockets: [],
            renewAt: clock + 60_000,
            release: () => released.push(n),
          };
        },
      },
    );
    const first = await pool.get('fixture', 'alice');
    expect(await pool.get('fixture', 'alice')).toBe(first);
    // A call still running on the first connection when it falls due.
    const stop = new AbortController();
    const running = first.callTool({ name: 'wait_for_cancel', arguments: {} }, { signal: stop.signal });
    clock += 60_000;
    const second = await pool.get('fixture', 'alice');
    expect(second).not.toBe(first);
    expect(second.pid).not.toBe(first.pid);
    expect(opened).toBe(2);
    expect(await pool.get('fixture', 'alice')).toBe(second);
    // Not closed under its running call.
    expect(released).toEqual([]);
    expect(isGone(first.pid as number)).toBe(false);
    // The call ends: the drained connection closes ('released') and gives its extras back.
    stop.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    const closed = await closedEvent(log, first.pid);
    expect(closed.reason).toBe('released');
    // The pool gives the extras back when the connection has fully closed (its `closed` promise).
    await (first as unknown as { closed: Promise<void> }).closed;
    expect(released).toEqual([1]);
    await waitUntilGone(first.pid as number);
    expect(await call(second, 'pid')).toBe(String(second.pid));
  });
});
