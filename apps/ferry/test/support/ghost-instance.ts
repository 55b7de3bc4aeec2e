// A Ferry instance that is not running: its calls written to the cluster's Redis through a Redis
// call store, as a Ferry instance writes them, under an instance id of the test's choosing. Tests
// make it alive (a liveness key that expires) or leave it gone, and watch the real instances end
// its calls. It stands for a process that died (SIGKILL, a crash, a network cut).
import { Redis } from 'ioredis';
import { createRedisCallStore, type RedisCallStore } from '../../src/calls/redis-call-store.js';
import { closeRedisConnection } from '../../src/shared/redis-connection.js';
import type { TestCluster } from './start-cluster.js';

export interface GhostInstance {
  store: RedisCallStore;
  close(): Promise<void>;
}

export async function openGhostInstance(cluster: TestCluster): Promise<GhostInstance> {
  const redis = new Redis(cluster.redis.url, { lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  const store = createRedisCallStore({
    redis,
    openSubscriber: () => Promise.reject(new Error('the ghost follows nothing')),
    prefix: cluster.redis.prefix,
    limits: { maxEventsPerCall: 1000, maxKeptCalls: 1000, keepFinishedMinutes: 60 },
  });
  return {
    store,
    async close() {
      await store.close();
      await closeRedisConnection(redis);
    },
  };
}
