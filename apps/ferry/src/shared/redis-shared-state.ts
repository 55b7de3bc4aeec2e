// Scale mode's shared state: so far the instance bus over Redis; the call store, user events and
// sessions will share its commands connection.
import { createRedisSessionActivity } from '../auth/redis-session-activity.js';
import { createRedisCallStore, type RedisCallStore } from '../calls/redis-call-store.js';
import { createRedisTurnLog } from '../chat/redis-turn-log.js';
import type { RedisConfig } from '../config/app-config.js';
import { createRedisUserEvents, type RedisUserEvents } from '../events/redis-user-events.js';
import { openRedisConnection, redisDisplayName } from './redis-connection.js';
import { createRedisInstanceBus, TTL_HEARTBEATS } from './redis-instance-bus.js';
import { createRedisJobLock } from './redis-job-lock.js';
import { startRedisReaper } from './redis-reaper.js';
import type { SharedState, SharedStateOptions } from './shared-state.js';

export async function openRedisSharedState(
  config: RedisConfig,
  options: SharedStateOptions = {},
): Promise<SharedState> {
  const bus = await createRedisInstanceBus({
    url: config.url,
    prefix: config.prefix,
    heartbeatMs: config.heartbeatMs,
    requestTimeoutMs: config.requestTimeoutMs,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  const stores: RedisCallStore[] = [];
  const userEvents: RedisUserEvents[] = [];
  let reportError: (error: unknown) => void = () => {};
  // Ends the calls of instances that died, every heartbeat (redis-reaper.ts).
  const reaper = startRedisReaper({
    redis: bus.redis,
    prefix: config.prefix,
    self: bus.id,
    intervalMs: config.heartbeatMs,
    silentMs: config.heartbeatMs * TTL_HEARTBEATS,
    store: () => stores[0],
    // A failed round is reported where the store's errors go (the next round tries again).
    onError: (error) => reportError(error),
    // As the running instance does for every event of its calls (app.ts onEvent).
    onReaped: ({ owner, event }) => {
      void userEvents[0]?.publish(owner, { type: 'call', event });
    },
  });
  return {
    instanceId: bus.id,
    createCallStore: ({ limits, now, onError }) => {
      const store = createRedisCallStore({
        // The bus's commands connection: one per instance for every shared part.
        redis: bus.redis,
        openSubscriber: () =>
          openRedisConnection({
            url: config.url,
            role: 'subscriber',
            name: `ferry:${bus.id}:calls`,
            onError,
          }),
        prefix: config.prefix,
        limits,
        now,
        onError,
      });
      stores.push(store);
      reportError = onError;
      return store;
    },
    createUserEvents: ({ now, onError }) => {
      const events = createRedisUserEvents({
        redis: bus.redis,
        openSubscriber: () =>
          openRedisConnection({
            url: config.url,
            role: 'subscriber',
            name: `ferry:${bus.id}:events`,
            onError,
          }),
        prefix: config.prefix,
        now,
        onError,
      });
      userEvents.push(events);
      return events;
    },
    createTurnLog: ({ onError }) =>
      createRedisTurnLog({
        redis: bus.redis,
        openSubscriber: () =>
          openRedisConnection({
            url: config.url,
            role: 'subscriber',
            name: `ferry:${bus.id}:turns`,
            onError,
          }),
        prefix: config.prefix,
        onError,
      }),
    createSessionActivity: ({ onError }) =>
      createRedisSessionActivity({ redis: bus.redis, prefix: config.prefix, onError }),
    jobLock: createRedisJobLock({ redis: bus.redis, prefix: config.prefix, instance: bus.id }),
    reapGone: () => reaper.sweep(),
    label: `Redis (${redisDisplayName(config.url)})`,
    bus,
    readiness: {
      name: 'redis',
      check: (signal) =>
        new Promise<void>((resolve, reject) => {
          const abort = () => reject(new Error('Redis did not answer PING in time'));
          if (signal.aborted) return abort();
          signal.addEventListener('abort', abort, { once: true });
          bus
            .ping()
            .then(resolve, reject)
            .finally(() => signal.removeEventListener('abort', abort));
        }),
    },
    close: async () => {
      await reaper.stop();
      // The stores' subscribers first: they borrow the bus's commands connection.
      await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
      await Promise.all(userEvents.map((events) => events.close().catch(() => undefined)));
      await bus.close();
    },
  };
}
