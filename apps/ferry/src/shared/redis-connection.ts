// One ioredis connection, opened for a role. A connection that SUBSCRIBEs can send nothing else,
// so scale mode holds two per instance: `commands` (keys, PUBLISH, scripts) and `subscriber`. Both
// carry a client name (`CLIENT LIST` shows which instance and role a connection is) and reconnect
// by themselves; whoever opened one re-does its per-connection state on `ready` (the bus
// re-subscribes and refreshes its heartbeat). Only this file and the redis-* modules import
// ioredis, and only through a dynamic import (shared-state.ts): the embedded default never loads it.
import { FerryError } from '@ferry/contract';
import { Redis } from 'ioredis';

export type RedisRole = 'commands' | 'subscriber';

export interface OpenRedisOptions {
  url: string;
  role: RedisRole;
  /** Shown by CLIENT LIST, e.g. `ferry:<instance id>:commands`. */
  name: string;
  /** A connection error; ioredis retries by itself, so this is for logs and metrics. */
  onError?: (error: Error) => void;
}

/** Opens and waits until ready; an unreachable Redis fails here, naming it (never its password). */
export async function openRedisConnection(options: OpenRedisOptions): Promise<Redis> {
  const client = new Redis(options.url, {
    lazyConnect: true,
    connectionName: options.name,
    // The bus re-subscribes itself on `ready` so that it knows when the subscriptions are back.
    autoResubscribe: false,
    // Retry forever with a capped backoff: an instance outlives a Redis restart.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  // Without a listener ioredis prints every retry's error to the console.
  client.on('error', (error: Error) => options.onError?.(error));
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new FerryError(
      'E_INTERNAL',
      `Cannot connect to Redis at ${redisDisplayName(options.url)}: ${(error as Error).message}`,
      { reason: 'redis_unreachable', redis: redisDisplayName(options.url) },
    );
  }
  return client;
}

/**
 * Closes politely (QUIT) when Redis answers within `graceMs`, else drops the socket: a stopping
 * instance must not hang on a Redis that is down.
 */
export async function closeRedisConnection(client: Redis, graceMs = 1_000): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const done = await Promise.race([client.quit().catch(() => 'late' as const), late]);
  clearTimeout(timer);
  if (done === 'late') client.disconnect();
}

/** `redis://host:port/db` without user or password: what logs and the status line may show. */
export function redisDisplayName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis';
  }
}

/** Every key and channel of the instance bus, under the deployment's prefix. */
export function instanceKeys(prefix: string) {
  return {
    /** STRING {pid, host, startedAt} with a TTL of 3 heartbeats: the instance is alive while it exists. */
    alive: (instance: string) => `${prefix}instance:${instance}`,
    /** SET of the instance ids that joined (the reaper walks it for ones whose `alive` key is gone). */
    instances: `${prefix}instances`,
    /** Channel of requests to one instance. */
    commands: (instance: string) => `${prefix}cmd:${instance}`,
    /** Channel of the answers to one instance's requests (and broadcasts). */
    replies: (instance: string) => `${prefix}reply:${instance}`,
    /** Channel every instance listens on. */
    broadcast: `${prefix}bcast`,
  };
}

export type InstanceKeys = ReturnType<typeof instanceKeys>;
