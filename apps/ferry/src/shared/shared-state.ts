// What Ferry instances share in scale mode, made from the config: nothing in the embedded default
// (undefined: every part keeps its in-memory implementation), the Redis parts when `redis` is set.
// The Redis module is imported only then, so the embedded start never loads ioredis (a test
// follows this file's static imports to check it).
import type { SessionActivity } from '../auth/session-activity.js';
import type { CallStore, CallStoreLimits } from '../calls/call-store.js';
import type { TurnLog } from '../chat/turn-log.js';
import type { RedisConfig } from '../config/app-config.js';
import type { UserEvents } from '../events/user-events.js';
import type { ReadinessCheck } from '../ops/readiness.js';
import type { InstanceBus } from './instance-bus.js';
import type { JobLock } from './job-lock.js';
import type { RedisInstanceBusObserver } from './redis-instance-bus.js';

export interface SharedState {
  /** This instance's id among the others. */
  readonly instanceId: string;
  /** For the status line and logs, e.g. `Redis (redis://cache:6379)`: never the password. */
  readonly label: string;
  readonly bus: InstanceBus;
  /** For /readyz: PING on the Redis connection. */
  readonly readiness: ReadinessCheck;
  /**
   * The calls every instance sees (records, events, the running limit); the registry keeps only
   * what runs here. Closed with the shared state.
   */
  createCallStore(options: SharedCallStoreOptions): CallStore;
  /** The users' event streams every instance publishes to and follows. Closed with the shared state. */
  createUserEvents(options: SharedUserEventsOptions): UserEvents;
  /** The chat turns every instance follows (one per conversation across instances). Closed by ChatTurns. */
  createTurnLog(options: { onError: (error: unknown) => void }): TurnLog;
  /** When each session was last used on any instance (expiry asks before it ends one). */
  createSessionActivity(options: { onError: (error: unknown) => void }): SessionActivity;
  /** Housekeeping of shared things (the FileStore sweep) that one instance does at a time. */
  readonly jobLock: JobLock;
  /** Ends the running calls of instances that are gone, now (else the next heartbeat does). */
  reapGone(): Promise<number>;
  /** Leaves the others (liveness key, instance set) and closes the connections. */
  close(): Promise<void>;
}

export interface SharedCallStoreOptions {
  limits: CallStoreLimits;
  now: () => number;
  /** A follower that could not catch up after a reconnect, a malformed message. */
  onError: (error: unknown) => void;
}

export interface SharedUserEventsOptions {
  now: () => number;
  /** A publish that failed, a follower that could not catch up after a reconnect. */
  onError: (error: unknown) => void;
}

export interface SharedStateOptions {
  /** This instance's public URL, stored in its liveness key for operators. */
  publicUrl?: string;
  observer?: RedisInstanceBusObserver;
}

export async function createSharedState(
  config: { readonly redis?: RedisConfig | undefined },
  options: SharedStateOptions = {},
): Promise<SharedState | undefined> {
  if (!config.redis) return undefined;
  const { openRedisSharedState } = await import('./redis-shared-state.js');
  return openRedisSharedState(config.redis, options);
}
