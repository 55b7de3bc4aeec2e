// Sessions of two instances sharing Redis (issue 22, step 8): a browser tab's requests land on
// either instance, so an instance ends a session as idle only when no instance used it within the
// idle time. Each instance here is the real createSessions with the real Redis activity, on one
// clock the test moves.
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisSessionActivity, sessionsKey } from '../../src/auth/redis-session-activity.js';
import { createSessions, type Sessions } from '../../src/auth/sessions.js';

const ALICE = { owner: 'o-alice', username: 'alice' };
const MINUTE = 60_000;

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => redis?.drop());

/** Two instances on one clock; `idle` is what each instance's FileStore says has idle files. */
function twoInstances(prefix: string) {
  let clock = 0;
  const ended: string[] = [];
  // As the FileStore's: ending a session twice deletes its files once.
  const gone = new Set<string>();
  let idle: string[] = [];
  const make = (): Sessions =>
    createSessions({
      files: {
        endSession: async (key) => {
          ended.push(key);
          if (gone.has(key)) return 0;
          gone.add(key);
          return 1;
        },
        idleSessions: async () => idle,
      },
      idleMinutes: 1,
      now: () => clock,
      activity: createRedisSessionActivity({ redis: redis.client, prefix }),
    });
  return {
    a: make(),
    b: make(),
    ended,
    at: (ms: number) => {
      clock = ms;
    },
    filesIdle: (keys: string[]) => {
      idle = keys;
    },
  };
}

/** The session's last use as Redis has it, once the fire-and-forget write has landed. */
async function sharedLastUse(prefix: string, key: string): Promise<number | undefined> {
  // Every instance here writes through this same connection, so its ZADDs are answered first.
  const score = await redis.client.zscore(sessionsKey(prefix), key);
  return score === null ? undefined : Number(score);
}

describe('sessions shared through Redis', () => {
  it('a session in use on B is not ended by A, which saw it only at the start', async () => {
    const prefix = `${redis.prefix}s1:`;
    const { a, b, ended, at } = twoInstances(prefix);
    const key = a.open(ALICE, 'tab-one-1234').key;
    b.open(ALICE, 'tab-one-1234');
    at(50_000);
    b.touch(ALICE, 'tab-one-1234');
    expect(await sharedLastUse(prefix, key)).toBe(50_000);

    at(61_000);
    expect(await a.expire()).toBe(0);
    expect(await b.expire()).toBe(0);
    expect(ended).toEqual([]);
    // A let go of it (no use here within the idle time); B still holds it.
    expect(a.liveUsers().has('alice')).toBe(false);
    expect(b.liveUsers().has('alice')).toBe(true);

    at(50_000 + MINUTE + 1);
    expect(await b.expire()).toBe(1);
    expect(ended).toEqual([key]);
    expect(await sharedLastUse(prefix, key)).toBeUndefined();
  });

  it('a session A never saw, with idle files by the catalog, stays while B uses it', async () => {
    const prefix = `${redis.prefix}s2:`;
    const { a, b, ended, at, filesIdle } = twoInstances(prefix);
    const key = b.open(ALICE, 'tab-two-1234').key;
    filesIdle([key]);
    at(45_000);
    b.touch(ALICE, 'tab-two-1234');
    at(70_000);
    expect(await a.expire()).toBe(0);
    expect(ended).toEqual([]);
    at(45_000 + MINUTE + 1);
    expect(await a.expire()).toBe(1);
    expect(ended).toEqual([key]);
  });

  it('writes the last use at most every quarter of the idle time, and never moves it back', async () => {
    const prefix = `${redis.prefix}s3:`;
    const { a, b, at } = twoInstances(prefix);
    const key = a.open(ALICE, 'tab-three-1234').key;
    b.open(ALICE, 'tab-three-1234');
    for (let ms = 1_000; ms < 15_000; ms += 1_000) {
      at(ms);
      a.touch(ALICE, 'tab-three-1234');
    }
    expect(await sharedLastUse(prefix, key)).toBe(0);
    at(15_000);
    a.touch(ALICE, 'tab-three-1234');
    expect(await sharedLastUse(prefix, key)).toBe(15_000);
    // B's write of an older use (a lagging instance) does not lower it.
    createRedisSessionActivity({ redis: redis.client, prefix }).record(key, 5_000);
    expect(await sharedLastUse(prefix, key)).toBe(15_000);
  });

  it('two instances expiring one idle session at once delete its files once', async () => {
    const prefix = `${redis.prefix}s4:`;
    const { a, b, ended, at } = twoInstances(prefix);
    const key = a.open(ALICE, 'tab-four-1234').key;
    b.open(ALICE, 'tab-four-1234');
    at(MINUTE + 1);
    const [fromA, fromB] = await Promise.all([a.expire(), b.expire()]);
    expect(fromA + fromB).toBe(1);
    expect(new Set(ended)).toEqual(new Set([key]));
  });

  it("an explicit end on A: B's copy expires harmlessly (the FileStore's end is idempotent)", async () => {
    const prefix = `${redis.prefix}s5:`;
    const { a, b, ended, at } = twoInstances(prefix);
    const key = a.open(ALICE, 'tab-five-1234').key;
    b.open(ALICE, 'tab-five-1234');
    expect(await a.end(ALICE, 'tab-five-1234')).toBe(1);
    expect(await sharedLastUse(prefix, key)).toBeUndefined();
    at(MINUTE + 1);
    // B's own copy is idle and Redis knows nothing newer: the FileStore is asked once more.
    expect(await b.expire()).toBe(0);
    expect(ended).toEqual([key, key]);
  });
});
