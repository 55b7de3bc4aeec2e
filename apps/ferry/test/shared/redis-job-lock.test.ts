// The job lock of scale mode (real Redis): of instances whose timers fire at once, one sweeps the
// shared FileStore per period; a sweep that fails gives the round back.
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisJobLock, jobLockKey } from '../../src/shared/redis-job-lock.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => redis?.drop());

const lockOf = (instance: string) =>
  createRedisJobLock({ redis: redis.client, prefix: redis.prefix, instance });

it('runs a job once per period across instances, whichever comes first', async () => {
  const runs: string[] = [];
  const work = (name: string) => async () => {
    runs.push(name);
    return name;
  };
  const [a, b, c] = [lockOf('a'), lockOf('b'), lockOf('c')];
  const results = await Promise.all([
    a.runOncePer('sweep-1', 60_000, work('a')),
    b.runOncePer('sweep-1', 60_000, work('b')),
    c.runOncePer('sweep-1', 60_000, work('c')),
  ]);
  expect(runs).toHaveLength(1);
  expect(results.filter((result) => result !== undefined)).toEqual(runs);
  // Done, but the round stays taken for its period.
  expect(await b.runOncePer('sweep-1', 60_000, work('b'))).toBeUndefined();
  expect(await redis.client.pttl(jobLockKey(redis.prefix, 'sweep-1'))).toBeGreaterThan(50_000);
  // Another job is another lock.
  expect(await b.runOncePer('sweep-2', 60_000, work('b'))).toBe('b');
});

it('a failed run gives the round back; a period that passed frees it', async () => {
  const a = lockOf('a');
  const b = lockOf('b');
  await expect(
    a.runOncePer('sweep-3', 60_000, async () => {
      throw new Error('S3 away');
    }),
  ).rejects.toThrow('S3 away');
  expect(await b.runOncePer('sweep-3', 60_000, async () => 'b ran')).toBe('b ran');

  expect(await a.runOncePer('sweep-4', 50, async () => 'first')).toBe('first');
  expect(await b.runOncePer('sweep-4', 50, async () => 'too soon')).toBeUndefined();
  // The key's own expiry ends the period (no clock of ours decides it).
  const key = jobLockKey(redis.prefix, 'sweep-4');
  const deadline = Date.now() + 5_000;
  while ((await redis.client.exists(key)) === 1 && Date.now() < deadline) await redis.client.ping();
  expect(await b.runOncePer('sweep-4', 50, async () => 'next period')).toBe('next period');
});
