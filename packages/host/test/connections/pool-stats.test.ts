// The pool's read-only counts (metrics read them at each scrape): starts holding a slot and
// waiting for one under maxConcurrentStarts, and the connections alive by kind.
import { describe, expect, it } from 'vitest';
import type { PoolStats } from '../../src/connections/connection.js';
import { poolPerTest } from '../support/pool-per-test.js';
import { fixtureServer } from '../support/servers.js';

const startPool = poolPerTest();

describe('connection pool stats', () => {
  it('count starts running and waiting for a slot, and live connections by kind', async () => {
    const seen: PoolStats[] = [];
    const { pool } = startPool(
      { fixture: fixtureServer() },
      {
        maxConcurrentStarts: 1,
        launcher: (server) => {
          // Called while its start holds the one slot.
          seen.push(pool.stats?.() as PoolStats);
          return {
            command: server.command,
            args: [...server.args],
            env: { ...process.env } as Record<string, string>,
          };
        },
      },
    );
    expect(pool.stats?.()).toEqual({
      connections: { local: 0, remote: 0 },
      starts: { running: 0, waiting: 0 },
    });
    await Promise.all(['u1', 'u2', 'u3'].map((user) => pool.get('fixture', user)));
    expect(seen.map((stats) => stats.starts)).toEqual([
      { running: 1, waiting: 2 },
      { running: 1, waiting: 1 },
      { running: 1, waiting: 0 },
    ]);
    expect(pool.stats?.()).toEqual({
      connections: { local: 3, remote: 0 },
      starts: { running: 0, waiting: 0 },
    });
    await pool.closeUser('u1');
    expect(pool.stats?.().connections).toEqual({ local: 2, remote: 0 });
  });
});
