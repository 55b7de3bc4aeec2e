// Scale mode's shared state: so far the instance bus over Redis; the call store, user events and
// sessions will share its commands connection.
import type { RedisConfig } from '../config/app-config.js';
import { redisDisplayName } from './redis-connection.js';
import { createRedisInstanceBus } from './redis-instance-bus.js';
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
  return {
    instanceId: bus.id,
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
    close: () => bus.close(),
  };
}
