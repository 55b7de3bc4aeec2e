// The turn log's contract, on memory and on real Redis: one running turn per conversation, events
// replayed after a seq then live then the end, each once and in order; an ended turn refuses writes
// and stays followable; followers are counted. Redis only: a turn whose instance stops renewing
// its lease is gone, and its followers end it as lost.
import type { AgentEvent } from '@ferry/contract';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTurnLog } from '../../src/chat/redis-turn-log.js';
import { createMemoryTurnLog, type TurnLog } from '../../src/chat/turn-log.js';
import { closeRedisConnection } from '../../src/shared/redis-connection.js';

let redis: TestRedis;
const subscribers: Redis[] = [];
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => {
  for (const subscriber of subscribers) await closeRedisConnection(subscriber);
  await redis?.drop();
});

const token = (delta: string): AgentEvent => ({ type: 'token', delta });
const finished: AgentEvent = { type: 'turn_finished', status: 'completed' };

function redisLog(leaseMs = 30_000): TurnLog {
  return createRedisTurnLog({
    redis: redis.client,
    openSubscriber: async () => {
      const subscriber = new Redis(redis.url);
      subscriber.on('error', () => {});
      subscribers.push(subscriber);
      return subscriber;
    },
    prefix: redis.prefix,
    leaseMs,
    checkMs: 100,
  });
}

/** Follows until the end; resolves with what arrived and how it ended. */
function followAll(log: TurnLog, owner: string, conversation: string, after: number) {
  const seen: [number, AgentEvent][] = [];
  let stop: (() => void) | undefined;
  const ended = new Promise<'finished' | 'lost'>((resolve) => {
    void log
      .follow(owner, conversation, after, { event: (seq, event) => seen.push([seq, event]), end: resolve })
      .then((s) => {
        stop = s;
        if (!s) resolve('finished');
      });
  });
  return { seen, ended, stop: () => stop?.() };
}

describe.each([
  ['memory', () => createMemoryTurnLog()],
  ['redis', () => redisLog()],
])('turn log contract: %s', (_name, open) => {
  it('one running turn per conversation; another conversation or owner is another turn', async () => {
    const log = open();
    const conversation = `c-${Math.random()}`;
    const first = await log.begin('o1', conversation, 'i1');
    expect(first).toBeTruthy();
    expect(await log.begin('o1', conversation, 'i2')).toBeUndefined();
    expect(await log.begin('o2', conversation, 'i2')).toBeTruthy();
    expect(await log.get('o1', conversation)).toEqual({ turnId: first, instance: 'i1', running: true });
    expect(await log.runningAmong('o1', [conversation, 'other'])).toEqual(new Set([conversation]));
    await log.end('o1', conversation, first as string);
    expect(await log.runningAmong('o1', [conversation])).toEqual(new Set());
    const second = await log.begin('o1', conversation, 'i2');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    await log.close();
  });

  it('follow replays after a seq, then live, then ends; an ended turn refuses writes, stays readable', async () => {
    const log = open();
    const conversation = `c-${Math.random()}`;
    const turnId = (await log.begin('o1', conversation, 'i1')) as string;
    for (const [seq, delta] of [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ] as const) {
      expect(await log.append('o1', conversation, turnId, seq, token(delta))).toBe(true);
    }
    const live = followAll(log, 'o1', conversation, 1);
    const fromStart = followAll(log, 'o1', conversation, 0);
    await expect.poll(() => live.seen.length).toBe(2);
    expect(await log.followers('o1', conversation)).toBe(2);
    await log.append('o1', conversation, turnId, 4, token('d'));
    await log.append('o1', conversation, turnId, 5, finished);
    await log.end('o1', conversation, turnId);
    expect(await live.ended).toBe('finished');
    expect(await fromStart.ended).toBe('finished');
    expect(live.seen.map(([seq]) => seq)).toEqual([2, 3, 4, 5]);
    expect(fromStart.seen.map(([seq]) => seq)).toEqual([1, 2, 3, 4, 5]);
    expect(fromStart.seen.at(-1)?.[1]).toEqual(finished);
    expect(await log.append('o1', conversation, turnId, 6, token('late'))).toBe(false);
    // Ended: still readable from any seq, and the follow ends at once.
    const after = followAll(log, 'o1', conversation, 3);
    expect(await after.ended).toBe('finished');
    expect(after.seen.map(([seq]) => seq)).toEqual([4, 5]);
    // Nothing known: no follow.
    expect(await log.follow('o1', 'never', 0, { event: () => {}, end: () => {} })).toBeUndefined();
    await log.close();
  });

  it('a stopped follower no longer counts', async () => {
    const log = open();
    const conversation = `c-${Math.random()}`;
    const turnId = (await log.begin('o1', conversation, 'i1')) as string;
    const one = followAll(log, 'o1', conversation, 0);
    await expect.poll(() => log.followers('o1', conversation)).toBe(1);
    one.stop();
    await expect.poll(() => log.followers('o1', conversation)).toBe(0);
    await log.end('o1', conversation, turnId);
    await log.close();
  });
});

describe('turn log on Redis', () => {
  it('a turn whose instance stops renewing its lease is gone: followers end it as lost, the conversation is free', async () => {
    const ghost = redisLog(300);
    const conversation = `c-${Math.random()}`;
    const turnId = (await ghost.begin('o1', conversation, 'ghost')) as string;
    await ghost.append('o1', conversation, turnId, 1, token('half an'));
    const other = redisLog();
    const follower = followAll(other, 'o1', conversation, 0);
    // The ghost dies: its keepalive stops, the lease runs out.
    await ghost.close();
    expect(await follower.ended).toBe('lost');
    expect(follower.seen).toEqual([[1, token('half an')]]);
    expect(await other.begin('o1', conversation, 'i2')).toBeTruthy();
    await other.close();
  });

  it('a live turn keeps its lease while silent (a long model answer)', async () => {
    const log = redisLog(300);
    const conversation = `c-${Math.random()}`;
    const turnId = (await log.begin('o1', conversation, 'i1')) as string;
    const follower = followAll(log, 'o1', conversation, 0);
    // Three leases without an event: the keepalive holds it.
    const deadline = Date.now() + 900;
    while (Date.now() < deadline) await redis.client.ping();
    expect((await log.get('o1', conversation))?.running).toBe(true);
    await log.append('o1', conversation, turnId, 1, finished);
    await log.end('o1', conversation, turnId);
    expect(await follower.ended).toBe('finished');
    expect(follower.seen).toEqual([[1, finished]]);
    await log.close();
  });
});
