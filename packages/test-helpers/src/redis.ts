// A Redis key prefix of its own per test file, so files running in parallel (and runs after a
// crash) never see each other's keys; `drop()` deletes every key under it. When Redis is missing,
// creating the prefix throws with what to do: never a quiet skip.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

const TEST_REDIS_URL = process.env.FERRY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECT_TIMEOUT_MS = 5000;

export interface TestRedis {
  url: string;
  /** `ferry-test-<hex>:`, the start of every key and channel the test may use. */
  prefix: string;
  /** A connection of the test's own, for looking at keys or killing other clients. */
  client: Redis;
  /** Deletes every key under the prefix and closes `client`. Safe to call twice. */
  drop(): Promise<void>;
}

export async function createTestRedis(): Promise<TestRedis> {
  const prefix = `ferry-test-${randomBytes(6).toString('hex')}:`;
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    connectionName: 'ferry-test-helper',
  });
  // ioredis also reports a failed connect as an 'error' event; the rejection below says it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `Redis is unreachable at ${TEST_REDIS_URL} (${(error as Error).message || String(error)}). ` +
        'These tests need it: start it, or point FERRY_TEST_REDIS_URL at one.',
    );
  }
  let dropped = false;
  return {
    url: TEST_REDIS_URL,
    prefix,
    client,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await deleteUnder(client, prefix);
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** Every key starting with `prefix`, found by SCAN (never KEYS, which blocks the server). */
export async function deleteUnder(client: Redis, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
