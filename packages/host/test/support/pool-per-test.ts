// One connection pool per test, closed after it (its server processes with it), and the small
// call helpers the pool tests share.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import type { ConnectionPool } from '../../src/connections/connection.js';
import { type ConnectionPoolOptions, createConnectionPool } from '../../src/connections/connection-pool.js';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import { createServerRegistry } from '../../src/servers/server-registry.js';
import { createEventLog, type EventLog } from './event-log.js';

export type StartPool = (
  servers: Record<string, ServerConfigInput>,
  options?: Partial<Omit<ConnectionPoolOptions, 'registry'>>,
) => { pool: ConnectionPool; log: EventLog };

/**
 * Registers an afterEach that closes the pools of the test. The function it returns makes one:
 * its events recorded in `log` and servers' stderr dropped, unless `options` say otherwise.
 */
export function poolPerTest(): StartPool {
  const pools: ConnectionPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });
  return (servers, options = {}) => {
    const log = createEventLog();
    const pool = createConnectionPool({
      registry: createServerRegistry(servers),
      onEvent: log.listener,
      onStderr: () => {},
      ...options,
    });
    pools.push(pool);
    return { pool, log };
  };
}

/** A signal that never aborts. */
export const never = (): AbortSignal => new AbortController().signal;

/** The text of a result's first content block. */
export const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
