// Scale mode's job lock (job-lock.ts): `P lock:<job>` set with NX for the period, holding this
// instance's id and a random token. It is not deleted when the work is done (the round is taken
// for the period, whichever instance's timer comes next), only when the work failed, and then only
// by its holder (a Lua compare-and-delete), never a lock another instance has taken since.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { runScript } from '../calls/redis-call-scripts.js';
import type { JobLock } from './job-lock.js';

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export const jobLockKey = (prefix: string, job: string) => `${prefix}lock:${job}`;

export function createRedisJobLock(options: { redis: Redis; prefix: string; instance: string }): JobLock {
  const { redis, prefix, instance } = options;
  return {
    async runOncePer(job, periodMs, work) {
      const key = jobLockKey(prefix, job);
      const token = `${instance}:${randomUUID()}`;
      const period = Math.max(1, Math.round(periodMs));
      if ((await redis.set(key, token, 'PX', period, 'NX')) !== 'OK') return undefined;
      try {
        return await work();
      } catch (error) {
        await runScript(redis, RELEASE, [key], [token]).catch(() => undefined);
        throw error;
      }
    },
  };
}
