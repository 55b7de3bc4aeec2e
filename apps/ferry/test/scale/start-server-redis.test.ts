// startServer in scale mode (FERRY_REDIS_URL): the summary and /readyz name Redis, the instance
// is alive in Redis while it runs and gone once it stops; an unreachable Redis stops the start
// with a message naming it, and leaves nothing locked behind.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { http } from '../support/start-app.js';

let dir: string;
let redis: TestRedis;
const TOKEN_SECRET = 't'.repeat(40);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-redis-start-'));
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
  await rm(dir, { recursive: true, force: true });
});

it('names Redis in the summary and in /readyz, and leaves Redis when it stops', async () => {
  const server = await startServer({
    cwd: dir,
    port: 0,
    env: { FERRY_REDIS_URL: redis.url, FERRY_REDIS_PREFIX: redis.prefix, FERRY_TOKEN_SECRET: TOKEN_SECRET },
  });
  let instances: string[];
  try {
    const line = server.summary.find((text) => text.startsWith('  shared'));
    expect(line).toMatch(/^ {2}shared {3}Redis \(redis:\/\/127\.0\.0\.1:6379\), this instance [\w-]+$/);
    const ready = await http(server.url, '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json()).toMatchObject({ checks: { redis: { ok: true } } });
    instances = await redis.client.smembers(`${redis.prefix}instances`);
    expect(instances).toHaveLength(1);
  } finally {
    await server.close();
  }
  expect(await redis.client.smembers(`${redis.prefix}instances`)).toEqual([]);
});

it('stops the start when Redis cannot be reached, naming it, and releases the data directory', async () => {
  const env = { FERRY_REDIS_URL: 'redis://127.0.0.1:1', FERRY_TOKEN_SECRET: TOKEN_SECRET };
  await expect(startServer({ cwd: dir, port: 0, env })).rejects.toThrow(
    /Cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/,
  );
  // Nothing was left locked: a start without Redis works in the same directory.
  const server = await startServer({ cwd: dir, port: 0, env: {} });
  await server.close();
});
