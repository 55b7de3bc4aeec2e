// The reaper of a dead instance's calls, against a real Redis: two Redis call stores over one
// prefix play instances A and B; A's death is its liveness key going away (deleted by hand, or
// left to expire). B's reaper ends A's running calls as failed (one event with the next seq, seen
// by B's follower), frees the running slots and forgets A; two reapers at once end each call once;
// and A, a zombie that comes back, has its next write refused and its local call aborted.
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createCallRegistry } from '../../src/calls/call-registry.js';
import type { CallListener, CallStoreLimits } from '../../src/calls/call-store.js';
import { createRedisCallStore, type RedisCallStore } from '../../src/calls/redis-call-store.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { createPathRedactor } from '../../src/http/redact-paths.js';
import { closeRedisConnection, instanceKeys } from '../../src/shared/redis-connection.js';
import { instanceLost, type RedisReaper, startRedisReaper } from '../../src/shared/redis-reaper.js';
import { newCall } from '../calls/call-store-suite.js';

const LIMITS: CallStoreLimits = { maxEventsPerCall: 1000, maxKeptCalls: 1000, keepFinishedMinutes: 60 };
const SILENT_MS = 600;
const MESSAGE = 'The Ferry instance running this call stopped (no heartbeat for 0.6 s)';

let redis: TestRedis;
const connections: Redis[] = [];
const stores: RedisCallStore[] = [];
const reapers: RedisReaper[] = [];

afterEach(async () => {
  for (const reaper of reapers.splice(0)) await reaper.stop();
  for (const store of stores.splice(0)) await store.close();
  for (const connection of connections.splice(0)) await closeRedisConnection(connection);
  await redis?.drop();
});

async function connect(): Promise<Redis> {
  const connection = new Redis(redis.url, { lazyConnect: true });
  connection.on('error', () => {});
  await connection.connect();
  connections.push(connection);
  return connection;
}

async function openStore(): Promise<RedisCallStore> {
  const store = createRedisCallStore({
    redis: await connect(),
    openSubscriber: connect,
    prefix: redis.prefix,
    limits: LIMITS,
  });
  stores.push(store);
  return store;
}

/** A reaper run by instance `self`; its timer only ticks when `intervalMs` is short. */
async function reaperOf(self: string, store: RedisCallStore, intervalMs = 60_000): Promise<RedisReaper> {
  const reaper = startRedisReaper({
    redis: await connect(),
    prefix: redis.prefix,
    self,
    intervalMs,
    silentMs: SILENT_MS,
    store: () => store,
  });
  reapers.push(reaper);
  return reaper;
}

/** What the bus's heartbeat writes: the liveness key and membership. */
async function beat(instance: string, ttlMs = 60_000): Promise<void> {
  const keys = instanceKeys(redis.prefix);
  await redis.client
    .multi()
    .set(keys.alive(instance), '{}', 'PX', ttlMs)
    .sadd(keys.instances, instance)
    .exec();
}

const progress = (callId: string, seq: number) =>
  ({ callId, seq, at: new Date(seq * 1000).toISOString(), type: 'progress', progress: seq }) as CallEvent;

function recorder() {
  const events: CallEvent[] = [];
  let ends = 0;
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const listener: CallListener = {
    event: (event) => events.push(event),
    end() {
      ends += 1;
      markEnded();
    },
  };
  return { listener, events, ended, ends: () => ends };
}

describe('redis reaper', () => {
  it("ends a dead instance's running calls as failed, once across two reapers, and frees the slots", async () => {
    redis = await createTestRedis();
    const a = await openStore();
    const b = await openStore();
    const keys = instanceKeys(redis.prefix);
    await beat('a');
    await beat('b');
    const running = await a.create({ ...newCall('o1'), instance: 'a' }, 1);
    const other = await a.create({ ...newCall('o2'), instance: 'a' }, 1);
    for (const seq of [1, 2, 3])
      expect(await a.append(running.callId, 'a', progress(running.callId, seq))).toBe(true);
    // Settled before the death: not A's running call any more, the reaper leaves it alone.
    expect(await a.settle(other.callId, 'a', toolCallResponse(other.callId), new Date())).toBe(true);
    const seen = recorder();
    const stop = await b.follow(running.callId, 0, seen.listener);
    const onB = await reaperOf('b', b);
    const onC = await reaperOf('c', await openStore());

    // A alive: nothing to reap, and the script itself refuses (a reaper that saw A gone just
    // before its heartbeat came back).
    expect(await onB.sweep()).toBe(0);
    const late = { type: 'failed', code: 'E_INTERNAL', message: 'late', retryable: true } as const;
    const at = new Date();
    const lateEvent = { ...late, callId: running.callId, at: at.toISOString() };
    const lateResponse = instanceLost(running.callId, 'a', 'late');
    expect(await b.reap(running.callId, 'a', lateEvent, lateResponse, at)).toBeUndefined();
    expect((await b.get('o1', running.callId))?.status).toBe('running');
    await expect(b.create({ ...newCall('o1'), instance: 'b' }, 1)).rejects.toMatchObject({
      code: 'E_TOO_MANY_CALLS',
    });

    await redis.client.del(keys.alive('a'));
    const reaped = await Promise.all([onB.sweep(), onC.sweep()]);
    expect(reaped[0] + reaped[1]).toBe(1);
    await seen.ended;
    stop();
    expect(seen.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(seen.ends()).toBe(1);
    const failed = seen.events[3];
    expect(failed).toMatchObject({
      callId: running.callId,
      seq: 4,
      type: 'failed',
      code: 'E_INTERNAL',
      message: MESSAGE,
      retryable: true,
    });
    expect((await b.eventsAfter(running.callId, 0)).map((event) => event.type)).toEqual([
      'progress',
      'progress',
      'progress',
      'failed',
    ]);
    const snapshot = await b.get('o1', running.callId);
    expect(snapshot).toMatchObject({ status: 'failed', lastSeq: 4, instance: 'a' });
    expect(snapshot?.finishedAt).toBeInstanceOf(Date);
    const response = snapshot?.response as ToolCallResponse;
    expect(response).toMatchObject({
      callId: running.callId,
      status: 'failed',
      forModel: { isError: true, error: { code: 'E_INTERNAL', message: MESSAGE, retryable: true } },
    });
    expect((await b.get('o2', other.callId))?.status).toBe('finished');
    // The slot is free, A is forgotten, B is still a member.
    expect((await b.create({ ...newCall('o1'), instance: 'b' }, 1)).status).toBe('running');
    expect((await redis.client.smembers(keys.instances)).sort()).toEqual(['b']);
    expect(await redis.client.exists(`${redis.prefix}instance:a:calls`)).toBe(0);
    // A reaped call stays reaped: another round writes nothing.
    expect(await onC.sweep()).toBe(0);
    expect(await b.eventsAfter(running.callId, 4)).toEqual([]);
  });

  it('two reaps of one call at once: one wins, the call gets one failed event', async () => {
    redis = await createTestRedis();
    const a = await openStore();
    const b = await openStore();
    const c = await openStore();
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 4);
    expect(await a.append(callId, 'a', progress(callId, 1))).toBe(true);
    const at = new Date();
    const event = { type: 'failed', code: 'E_INTERNAL', message: MESSAGE, retryable: true, callId } as const;
    const reap = (store: RedisCallStore) =>
      store.reap(callId, 'a', { ...event, at: at.toISOString() }, instanceLost(callId, 'a', MESSAGE), at);
    const won = await Promise.all([reap(b), reap(c), reap(b), reap(c)]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await c.eventsAfter(callId, 0)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'progress'],
      [2, 'failed'],
    ]);
    expect(await c.get('o1', callId)).toMatchObject({ status: 'failed', lastSeq: 2 });
  });

  it('reaps on its own timer once the liveness key expires', async () => {
    redis = await createTestRedis();
    const a = await openStore();
    const b = await openStore();
    // A's last heartbeat: gone in 300 ms.
    await beat('a', 300);
    const { callId } = await a.create({ ...newCall('o1'), instance: 'a' }, 4);
    expect(await a.append(callId, 'a', progress(callId, 1))).toBe(true);
    const seen = recorder();
    await b.follow(callId, 0, seen.listener);
    await reaperOf('b', b, 100);
    await seen.ended;
    expect(seen.events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'progress'],
      [2, 'failed'],
    ]);
    expect((await b.get('o1', callId))?.status).toBe('failed');
  });

  it('a zombie owner: its next write is refused and its local call is aborted, saying why', async () => {
    redis = await createTestRedis();
    const a = await openStore();
    const b = await openStore();
    await beat('a');
    let emit: (event: CallEvent) => void = () => {};
    let emitting: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      emitting = resolve;
    });
    let abortReason: unknown;
    const errors: string[] = [];
    const registry = createCallRegistry({
      callTool: async (request, send) => {
        emit = send;
        emitting();
        await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve()));
        abortReason = request.signal?.reason;
        return toolCallResponse(request.callId as string, 'cancelled');
      },
      limits: defaultAppConfig({}).calls,
      redact: createPathRedactor({ workspace: '/srv/ferry/ws' }),
      store: a,
      instance: 'a',
      onError: (error) => errors.push((error as Error).message),
    });
    const { callId } = await registry.start({
      owner: 'o1',
      username: 'alice',
      server: 's',
      tool: 't',
      arguments: {},
    });
    await ready;
    const stored = new Promise<void>((resolve) => {
      void b.follow(callId, 0, { event: () => resolve(), end: () => {} });
    });
    emit(progress(callId, 1));
    await stored;
    // A is cut off past its TTL: B reaps the call.
    await redis.client.del(instanceKeys(redis.prefix).alive('a'));
    expect(await (await reaperOf('b', b)).sweep()).toBe(1);
    // A's heartbeat comes back and its tool goes on emitting: the append is refused.
    await beat('a');
    emit(progress(callId, 2));
    await registry.settled(callId);
    expect(String((abortReason as Error | undefined)?.message)).toMatch(/lost the call/);
    expect(errors).toEqual([expect.stringMatching(/lost the call/)]);
    // The store keeps the reaper's outcome: A wrote nothing after it.
    expect(await b.get('o1', callId)).toMatchObject({ status: 'failed', lastSeq: 2 });
    expect((await b.eventsAfter(callId, 0)).map((event) => [event.seq, event.type])).toEqual([
      [1, 'progress'],
      [2, 'failed'],
    ]);
  });
});
