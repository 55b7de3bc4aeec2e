// Scale mode's session activity (session-activity.ts): one sorted set `P sessions` of session key →
// last use (epoch ms), raised with ZADD GT so an instance whose clock or write lags cannot move it
// back. Instances write it at most every `recordEveryMs` per session (a request must not pay a
// Redis round trip), so the idle time is exact to that much.
import type { Redis } from 'ioredis';
import { runScript } from '../calls/redis-call-scripts.js';
import type { SessionActivity } from './session-activity.js';

/** Removes the session unless it was used after the cutoff: 1 when it may be ended. */
const CLAIM_IDLE = `
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if seen and tonumber(seen) > tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`;

export interface RedisSessionActivityOptions {
  /** The commands connection (borrowed). */
  redis: Redis;
  prefix: string;
  /** A write that failed (Redis away): the next use writes again. */
  onError?: (error: unknown) => void;
}

export const sessionsKey = (prefix: string) => `${prefix}sessions`;

export function createRedisSessionActivity(options: RedisSessionActivityOptions): SessionActivity {
  const { redis } = options;
  const key = sessionsKey(options.prefix);
  return {
    record(session, at) {
      redis.zadd(key, 'GT', at, session).catch((error: unknown) => options.onError?.(error));
    },
    async claimIdle(session, cutoff) {
      return (await runScript(redis, CLAIM_IDLE, [key], [session, cutoff])) === 1;
    },
    async forget(session) {
      await redis.zrem(key, session);
    },
    async prune(cutoff) {
      await redis.zremrangebyscore(key, '-inf', cutoff);
    },
  };
}
