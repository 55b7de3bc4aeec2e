// The Redis CallStore against a real Redis: the contract suite (each test on a key prefix of its
// own), then what only a shared store has: two stores over one prefix play two Ferry instances
// (reads, follows, the running limit and the owner fence across them), a follower that survives
// its subscriber connection being killed, and retention by TTL and by the store's clock.
import type { CallEvent } from '@ferry/contract';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallListener, CallStoreLimits } from '../../src/calls/call-store.js';
import { callKeys, userKeys } from '../../src/calls/redis-call-scripts.js';
import { createRedisCallStore, type RedisCallStore } from '../../src/calls/redis-call-store.js';
import { describeCallStore, newCall } from './call-store-suite.js';

const LIMITS: CallStoreLimits = { maxEventsPerCall: 1000, maxKeptCalls: 1000, keepFinishedMinutes: 60 };

/** A connection of the store's own, named so that a test can find it in CLIENT LIST. */
async function connect(url: string, name: string, options: { retryMs?: number } = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName: name,
    retryStrategy: () => options.retryMs ?? 50,
  });
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

interface Opened {
  store: RedisCallStore;
  commands: Redis;
  subscriberName: string;
}

/** A store over `redis.prefix` as instance `name` would run it: its own two connections. */
async function openStore(
  redis: TestRedis,
  name: string,
  options: { limits?: Partial<CallStoreLimits>; now?: () => number; retryMs?: number } = {},
): Promise<Opened> {
  const commands = await connect(redis.url, `${redis.prefix}${name}:commands`);
  const subscriberName = `${redis.prefix}${name}:subscriber`;
  const store = createRedisCallStore({
    redis: commands,
    openSubscriber: () => connect(redis.url, subscriberName, { retryMs: options.retryMs }),
    prefix: redis.prefix,
    limits: { ...LIMITS, ...options.limits },
    now: options.now,
  });
  return { store, commands, subscriberName };
}

async function closeStore({ store, commands }: Opened): Promise<void> {
  await store.close();
  await commands.quit();
}

describeCallStore('redis', async (limits) => {
  const redis = await createTestRedis();
  const opened = await openStore(redis, 'suite', { limits });
  return {
    store: opened.store,
    cleanup: async () => {
      await closeStore(opened);
      await redis.drop();
    },
  };
});

const event = (callId: string, seq: number, type: 'progress' | 'notice' = 'progress'): CallEvent =>
  (type === 'progress'
    ? { callId, seq, at: new Date(seq * 1000).toISOString(), type, progress: seq }
    : {
        callId,
        seq,
        at: new Date(seq * 1000).toISOString(),
        type,
        level: 'info',
        message: `n${seq}`,
      }) as CallEvent;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Records what a follower gets; `reached(seq)` resolves once that seq has arrived. */
function recorder() {
  const seqs: number[] = [];
  let ends = 0;
  const waiting = new Map<number, () => void>();
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const listener: CallListener = {
    event(e) {
      seqs.push(e.seq);
      waiting.get(e.seq)?.();
    },
    end() {
      ends += 1;
      markEnded();
    },
  };
  const reached = (seq: number) =>
    seqs.includes(seq) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(seq, resolve));
  return { listener, seqs, ended, reached, ends: () => ends };
}

async function clientIdOf(client: Redis, name: string): Promise<string | undefined> {
  const list = (await client.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=${name} `));
  return line?.match(/^id=(\d+)/)?.[1];
}

describe('redis call store: two instances over one prefix', () => {
  let redis: TestRedis;
  const opened: Opened[] = [];
  const open = async (name: string, options?: Parameters<typeof openStore>[2]) => {
    const one = await openStore(redis, name, options);
    opened.push(one);
    return one;
  };
  afterEach(async () => {
    for (const one of opened.splice(0)) await closeStore(one);
    await redis?.drop();
  });
  const fresh = async () => {
    redis = await createTestRedis();
  };

  it('a call created on A is read, listed and followed on B, from 0 and from k, while A appends', async () => {
    await fresh();
    const a = (await open('a')).store;
    const b = (await open('b')).store;
    const created = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    expect(await b.get('o1', created.callId)).toEqual(created);
    expect(await b.list('o1')).toEqual([created]);
    expect(await b.get('o2', created.callId)).toBeUndefined();
    // Listed as A's until it settles (a dead A's calls are found there).
    const aCalls = `${redis.prefix}instance:a:calls`;
    expect(await redis.client.smembers(aCalls)).toEqual([created.callId]);

    for (const seq of range(1, 5))
      expect(await a.append(created.callId, 'a', event(created.callId, seq))).toBe(true);
    const fromStart = recorder();
    const fromFour = recorder();
    // A goes on appending while B starts following, without waiting for it, then settles.
    const appends = range(6, 40).map((seq) => a.append(created.callId, 'a', event(created.callId, seq)));
    const stops = await Promise.all([
      b.follow(created.callId, 0, fromStart.listener),
      b.follow(created.callId, 4, fromFour.listener),
    ]);
    expect(await Promise.all(appends)).toEqual(range(6, 40).map(() => true));
    expect(await a.settle(created.callId, 'a', toolCallResponse(created.callId), new Date())).toBe(true);
    await Promise.all([fromStart.ended, fromFour.ended]);
    expect(fromStart.seqs).toEqual(range(1, 40));
    expect(fromFour.seqs).toEqual(range(5, 40));
    expect([fromStart.ends(), fromFour.ends()]).toEqual([1, 1]);
    expect(await b.get('o1', created.callId)).toMatchObject({
      status: 'finished',
      lastSeq: 40,
      instance: 'a',
    });
    expect(await redis.client.smembers(aCalls)).toEqual([]);
    for (const stop of stops) stop();
  });

  it('holds the running limit across A and B under concurrent creates', async () => {
    await fresh();
    const a = (await open('a')).store;
    const b = (await open('b')).store;
    const results = await Promise.allSettled(
      range(1, 8).map((i) =>
        i % 2
          ? a.create({ ...newCall('o1'), instance: 'a' }, 3)
          : b.create({ ...newCall('o1'), instance: 'b' }, 3),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect(r.reason).toMatchObject({ code: 'E_TOO_MANY_CALLS', status: 429, details: { running: 3 } });
    }
    expect(await redis.client.scard(userKeys(redis.prefix, 'o1').running)).toBe(3);
    // Settled on its own instance, a call frees its slot for the other.
    const [first] = await a.list('o1');
    if (!first) throw new Error('no call listed');
    const own = opened[first.instance === 'a' ? 0 : 1]?.store;
    expect(await own?.settle(first.callId, first.instance, toolCallResponse(first.callId), new Date())).toBe(
      true,
    );
    expect((await b.create({ ...newCall('o1'), instance: 'b' }, 3)).status).toBe('running');
    await expect(a.create({ ...newCall('o1'), instance: 'a' }, 3)).rejects.toMatchObject({
      code: 'E_TOO_MANY_CALLS',
    });
  });

  it("fences: B cannot append to or settle A's call, and B's attempts change nothing", async () => {
    await fresh();
    const a = (await open('a')).store;
    const b = (await open('b')).store;
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    expect(await a.append(callId, 'a', event(callId, 1))).toBe(true);
    const before = await b.get('o1', callId);
    expect(await b.append(callId, 'b', event(callId, 2))).toBe(false);
    expect(await b.settle(callId, 'b', toolCallResponse(callId, 'cancelled'), new Date())).toBe(false);
    expect(await b.get('o1', callId)).toEqual(before);
    expect((await b.eventsAfter(callId, 0)).map((e) => e.seq)).toEqual([1]);
    // A seq that does not grow is refused before anything is written.
    await expect(a.append(callId, 'a', event(callId, 1))).rejects.toThrow(/does not follow/);
    expect(await a.append(callId, 'a', event(callId, 2))).toBe(true);
    expect((await a.eventsAfter(callId, 0)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('a follower survives its subscriber connection being killed: every event once, none missed', async () => {
    await fresh();
    const a = (await open('a')).store;
    // B reconnects after 300 ms, long enough for A to publish while nobody listens.
    const bOpened = await open('b', { retryMs: 300 });
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    const live = callKeys(redis.prefix, callId).live;
    const seen = recorder();
    await bOpened.store.follow(callId, 0, seen.listener);
    for (const seq of range(1, 3)) await a.append(callId, 'a', event(callId, seq));
    await seen.reached(3);

    const id = await clientIdOf(redis.client, bOpened.subscriberName);
    expect(id).toBeDefined();
    await redis.client.client('KILL', 'ID', id as string);
    for (const seq of range(4, 6)) await a.append(callId, 'a', event(callId, seq));
    // Published to nobody: only the stream has 4..6.
    expect(await redis.client.pubsub('NUMSUB', live)).toEqual([live, 0]);
    await seen.reached(6);
    expect(await clientIdOf(redis.client, bOpened.subscriberName)).not.toBe(id);
    for (const seq of range(7, 9)) await a.append(callId, 'a', event(callId, seq));
    await a.settle(callId, 'a', toolCallResponse(callId), new Date());
    await seen.ended;
    expect(seen.seqs).toEqual(range(1, 9));
    expect(seen.ends()).toBe(1);
  });

  it('a follower whose connection drops while the call settles still ends, after every event', async () => {
    await fresh();
    const a = (await open('a')).store;
    const bOpened = await open('b', { retryMs: 300 });
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    const seen = recorder();
    await bOpened.store.follow(callId, 0, seen.listener);
    await a.append(callId, 'a', event(callId, 1));
    await seen.reached(1);
    await redis.client.client(
      'KILL',
      'ID',
      (await clientIdOf(redis.client, bOpened.subscriberName)) as string,
    );
    await a.append(callId, 'a', event(callId, 2));
    await a.settle(callId, 'a', toolCallResponse(callId), new Date());
    await seen.ended;
    expect(seen.seqs).toEqual([1, 2]);
    expect(seen.ends()).toBe(1);
  });

  it('one subscriber connection per store; the channel is left when its last follower stops', async () => {
    await fresh();
    const a = (await open('a')).store;
    const bOpened = await open('b');
    const calls = await Promise.all(range(1, 3).map(() => a.create({ ...newCall('o1'), instance: 'a' }, 8)));
    const stops = [];
    for (const call of calls) {
      stops.push(await bOpened.store.follow(call.callId, 0, recorder().listener));
      stops.push(await bOpened.store.follow(call.callId, 0, recorder().listener));
    }
    const list = (await redis.client.client('LIST')) as string;
    expect(list.split('\n').filter((l) => l.includes(` name=${bOpened.subscriberName} `))).toHaveLength(1);
    const live = callKeys(redis.prefix, calls[0]?.callId as string).live;
    expect(await redis.client.pubsub('NUMSUB', live)).toEqual([live, 1]);
    stops[0]?.();
    expect(await redis.client.pubsub('NUMSUB', live)).toEqual([live, 1]);
    stops[1]?.();
    // UNSUBSCRIBE went out on the subscriber connection; a command on it after is answered after.
    await bOpened.store.follow('no-such-call', 0, recorder().listener);
    expect(await redis.client.pubsub('NUMSUB', live)).toEqual([live, 0]);
    await bOpened.store.close();
    expect(await clientIdOf(redis.client, bOpened.subscriberName)).toBeUndefined();
  });

  it('a settled call expires keepFinishedMinutes after it finished; count retention spans instances', async () => {
    await fresh();
    let clock = Date.now();
    const a = (await open('a', { limits: { keepFinishedMinutes: 1, maxKeptCalls: 1 }, now: () => clock }))
      .store;
    const b = (await open('b', { limits: { keepFinishedMinutes: 1, maxKeptCalls: 1 }, now: () => clock }))
      .store;
    const running = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    const early = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    const late = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    await a.append(early.callId, 'a', event(early.callId, 1));
    await a.settle(early.callId, 'a', toolCallResponse(early.callId), new Date(clock - 30_000));
    await a.settle(late.callId, 'a', toolCallResponse(late.callId), new Date(clock));
    const keys = callKeys(redis.prefix, early.callId);
    for (const key of [keys.call, keys.events]) {
      const ttl = await redis.client.pttl(key);
      expect(ttl).toBeGreaterThan(25_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
    }
    expect(await redis.client.pttl(callKeys(redis.prefix, running.callId).call)).toBe(-1);
    // Count retention, swept by the other instance: only the latest finished stays.
    await b.sweep();
    expect((await a.list('o1')).map((c) => c.callId).sort()).toEqual([late.callId, running.callId].sort());
    expect(await a.eventsAfter(early.callId, 0)).toEqual([]);
    expect(await redis.client.exists(keys.call, keys.events, keys.progress)).toBe(0);
    // Time retention by the store's clock.
    clock += 60_001;
    await b.sweep();
    expect((await a.list('o1')).map((c) => c.callId)).toEqual([running.callId]);
    expect(await redis.client.zcard(`${redis.prefix}calls:finished`)).toBe(0);
  });

  it('refuses a malformed record instead of returning half of it', async () => {
    await fresh();
    const a = (await open('a')).store;
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 8);
    await redis.client.hset(callKeys(redis.prefix, callId).call, 'status', 'exploded');
    await expect(a.get('o1', callId)).rejects.toThrow(/malformed record/);
  });
});
