// The Redis instance bus against a real Redis, two buses in one process standing for two Ferry
// instances. Heartbeats are 100 ms, so an instance counts as gone 300 ms after its last one.

import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { FerryError } from '@ferry/contract';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InstanceGoneError } from '../../src/shared/instance-bus.js';
import {
  createRedisInstanceBus,
  type RedisInstanceBus,
  type RedisInstanceBusOptions,
} from '../../src/shared/redis-instance-bus.js';
import { describeInstanceBus } from './instance-bus-suite.js';
import { killClients } from './kill-clients.js';

const HEARTBEAT_MS = 100;
let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => {
  // Every bus left: nothing of theirs may linger but what the tests wrote by hand.
  await redis.drop();
});

/** A bus whose observer events can be awaited: `once(events, 'heartbeat')`. */
async function openBus(options: Partial<RedisInstanceBusOptions> = {}) {
  const events = new EventEmitter();
  const bus = await createRedisInstanceBus({
    url: redis.url,
    prefix: redis.prefix,
    heartbeatMs: HEARTBEAT_MS,
    requestTimeoutMs: 5_000,
    observer: {
      heartbeat: () => events.emit('heartbeat'),
      reconnected: (role) => events.emit(`reconnected:${role}`),
      disconnected: (role) => events.emit(`disconnected:${role}`),
      handlerFailed: (kind, error) => events.emit('handlerFailed', kind, error),
    },
    ...options,
  });
  return { bus, events };
}

describeInstanceBus('redis', async () => {
  const { bus } = await openBus();
  return { bus, close: () => bus.close() };
});

describe('redis instance bus (two instances)', { timeout: 10_000 }, () => {
  let a: RedisInstanceBus;
  let b: RedisInstanceBus;
  let aEvents: EventEmitter;
  let bEvents: EventEmitter;
  beforeEach(async () => {
    ({ bus: a, events: aEvents } = await openBus());
    ({ bus: b, events: bEvents } = await openBus());
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('each joins: a liveness key with a TTL of 3 heartbeats, and the instance set', async () => {
    expect(a.id).not.toBe(b.id);
    const ttl = await redis.client.pttl(`${redis.prefix}instance:${b.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3 * HEARTBEAT_MS);
    expect(JSON.parse((await redis.client.get(`${redis.prefix}instance:${b.id}`)) ?? '{}')).toMatchObject({
      pid: process.pid,
    });
    expect(await redis.client.smembers(`${redis.prefix}instances`)).toEqual(
      expect.arrayContaining([a.id, b.id]),
    );
  });

  it("A asks B: B's handler runs, not A's, and A gets B's answer", async () => {
    a.handle('whoami', async () => 'A');
    b.handle('whoami', async (payload) => ({ me: 'B', payload }));
    await expect(a.request(b.id, 'whoami', { q: 1 })).resolves.toEqual({ me: 'B', payload: { q: 1 } });
    await expect(b.request(a.id, 'whoami', null)).resolves.toBe('A');
  });

  it("B's FerryError crosses to A with the same code, message and details; another error as E_INTERNAL", async () => {
    b.handle('answer', async () => {
      throw new FerryError('E_INVALID_INPUT', 'The picked file is not accepted', { field: 'report' });
    });
    b.handle('crash', async () => {
      throw new TypeError('undefined is not a function at /srv/ferry');
    });
    const refused = await a.request(b.id, 'answer', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FerryError);
    expect(refused).toMatchObject({
      code: 'E_INVALID_INPUT',
      message: 'The picked file is not accepted',
      details: { field: 'report' },
      status: 400,
    });
    const failed = once(bEvents, 'handlerFailed');
    const crashed = await a.request(b.id, 'crash', {}).catch((error: unknown) => error);
    expect(crashed).toMatchObject({
      code: 'E_INTERNAL',
      details: { reason: 'handler_failed', instance: b.id },
    });
    expect((crashed as Error).message).not.toContain('/srv/ferry');
    // The cause stays on B, for its log.
    expect((await failed)[1]).toBeInstanceOf(TypeError);
  });

  it('an instance stopping with calls that did not settle stays in the set for the reaper', async () => {
    const callsOfB = `${redis.prefix}instance:${b.id}:calls`;
    await redis.client.sadd(callsOfB, 'call-still-running');
    await b.close();
    expect(await a.isAlive(b.id)).toBe(false);
    expect(await redis.client.sismember(`${redis.prefix}instances`, b.id)).toBe(1);
    await redis.client.del(callsOfB);
  });

  it('asking a closed instance fails at once as gone; isAlive turns false; it left the instance set', async () => {
    b.handle('echo', async (payload) => payload);
    expect(await a.isAlive(b.id)).toBe(true);
    await b.close();
    expect(await a.isAlive(b.id)).toBe(false);
    expect(await redis.client.sismember(`${redis.prefix}instances`, b.id)).toBe(0);
    const started = Date.now();
    const error = await a.request(b.id, 'echo', 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceGoneError);
    expect(error).toMatchObject({ reason: 'instance_gone', instance: b.id });
    expect(Date.now() - started).toBeLessThan(3 * HEARTBEAT_MS);
    await expect(b.request(a.id, 'echo', 1)).rejects.toMatchObject({ details: { reason: 'bus_closed' } });
  });

  it('a request waiting on an instance that dies (no close, its key expires) fails as gone within the TTL, not the timeout', async () => {
    // A crashed instance: subscribed to its channel, never answering, no heartbeat after the last.
    const ghost = randomUUID();
    const listener = redis.client.duplicate();
    await listener.subscribe(`${redis.prefix}cmd:${ghost}`);
    const heard = once(listener, 'message');
    await redis.client.set(`${redis.prefix}instance:${ghost}`, '{}', 'PX', 3 * HEARTBEAT_MS);
    try {
      const started = Date.now();
      const asked = a.request(ghost, 'cancel', { callId: 'c1' }, 5_000).catch((e: unknown) => e);
      const [, message] = await heard;
      expect(JSON.parse(message as string)).toMatchObject({ type: 'request', from: a.id, kind: 'cancel' });
      const error = await asked;
      expect(error).toBeInstanceOf(InstanceGoneError);
      expect(error).toMatchObject({ reason: 'instance_gone', instance: ghost });
      // TTL (300 ms) + one of A's heartbeats (100 ms), with slack; the timeout was 5 s.
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await listener.quit();
    }
  });

  it('a broadcast reaches both and resolves with both answers', async () => {
    a.handle('user.deleted', async (payload) => ({ on: 'A', payload }));
    b.handle('user.deleted', async (payload) => ({ on: 'B', payload }));
    const answers = await b.broadcast<{ on: string; payload: unknown }>('user.deleted', { owner: 'u1' });
    expect(answers.map((answer) => answer.on).sort()).toEqual(['A', 'B']);
    expect(answers.every((answer) => (answer.payload as { owner: string }).owner === 'u1')).toBe(true);
  });

  it('a broadcast fails with the FerryError of an instance that failed it', async () => {
    a.handle('session.ended', async () => 'ok');
    b.handle('session.ended', async () => {
      throw new FerryError('E_CONFLICT', 'busy');
    });
    await expect(a.broadcast('session.ended', {})).rejects.toMatchObject({
      code: 'E_CONFLICT',
      message: 'busy',
    });
  });

  it('a broadcast an instance does not answer in time fails, saying how many answered', async () => {
    a.handle('slow', async () => 'A');
    b.handle('slow', () => new Promise(() => {}));
    await expect(a.broadcast('slow', {}, 300)).rejects.toMatchObject({
      code: 'E_INTERNAL',
      message: 'Only 1 of 2 Ferry instances answered "slow" within 300 ms',
      details: { reason: 'broadcast_timeout', answered: 1, expected: 2 },
    });
  });

  it('closing rejects the requests still waiting', async () => {
    const started = new Promise<void>((resolve) => {
      b.handle('stall', () => {
        resolve();
        return new Promise(() => {});
      });
    });
    const asked = a.request(b.id, 'stall', {}).catch((e: unknown) => e);
    await started;
    await a.close();
    expect(await asked).toMatchObject({ code: 'E_INTERNAL', details: { reason: 'bus_closed' } });
  });

  it('survives its Redis connections being killed: re-subscribes, answers again, and keeps its key alive', async () => {
    b.handle('echo', async (payload) => ({ echo: payload }));
    const back = Promise.all([
      once(bEvents, 'reconnected:commands'),
      once(bEvents, 'reconnected:subscriber'),
    ]);
    expect(await killClients(redis.client, `ferry:${b.id}:`)).toBe(2);
    // Asked while B is still reconnecting: the request reaches B once it listens again.
    const during = a.request(b.id, 'echo', 'during');
    await back;
    await expect(during).resolves.toEqual({ echo: 'during' });
    await expect(a.request(b.id, 'echo', 'after')).resolves.toEqual({ echo: 'after' });
    // Four heartbeats after the drop span more than the key's TTL (300 ms): it was refreshed.
    for (let beat = 0; beat < 4; beat++) await once(bEvents, 'heartbeat');
    expect(await a.isAlive(b.id)).toBe(true);
    expect(await redis.client.pttl(`${redis.prefix}instance:${b.id}`)).toBeGreaterThan(HEARTBEAT_MS);
    // And the asking side: a request made while its own subscriber is away waits until it listens
    // again (the answer would be lost otherwise), then gets its answer.
    // Only its subscriber: its commands go out at once, and B's answer comes back to nobody.
    const aDropped = once(aEvents, 'disconnected:subscriber');
    expect(await killClients(redis.client, `ferry:${a.id}:subscriber`)).toBe(1);
    await aDropped;
    await expect(a.request(b.id, 'echo', 'again')).resolves.toEqual({ echo: 'again' });
  });

  it('leaves nothing behind once both closed', async () => {
    await Promise.all([a.close(), b.close()]);
    expect(
      await redis.client.exists(`${redis.prefix}instance:${a.id}`, `${redis.prefix}instance:${b.id}`),
    ).toBe(0);
    const names = (await redis.client.client('LIST')) as string;
    expect(names).not.toContain(`ferry:${a.id}:`);
    expect(names).not.toContain(`ferry:${b.id}:`);
  });
});
