// The Redis UserEvents against a real Redis: the contract suite with two instances over one key
// prefix (each with its own two connections), then what only a shared one has: the keys as the
// design names them, ids that keep growing when the counter is lost, and a follower that survives
// its subscriber connection being killed.
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisUserEvents,
  type RedisUserEvents,
  userEventKeys,
} from '../../src/events/redis-user-events.js';
import { changed, describeUserEvents, range, recorder } from './user-events-suite.js';

/** A connection of the instance's own, named so that a test can find it in CLIENT LIST. */
async function connect(url: string, name: string, retryMs = 50): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectionName: name, retryStrategy: () => retryMs });
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

interface Opened {
  events: RedisUserEvents;
  commands: Redis;
  subscriberName: string;
}

/** User events over `redis.prefix` as instance `name` would run them. */
async function openInstance(
  redis: TestRedis,
  name: string,
  options: { now?: () => number; retryMs?: number; onError?: (error: unknown) => void } = {},
): Promise<Opened> {
  const commands = await connect(redis.url, `${redis.prefix}${name}:commands`);
  const subscriberName = `${redis.prefix}${name}:events`;
  const events = createRedisUserEvents({
    redis: commands,
    openSubscriber: () => connect(redis.url, subscriberName, options.retryMs),
    prefix: redis.prefix,
    ...(options.now ? { now: options.now } : {}),
    onError: options.onError ?? ((error) => expect.unreachable(String(error))),
  });
  return { events, commands, subscriberName };
}

async function closeInstance({ events, commands }: Opened): Promise<void> {
  await events.close();
  await commands.quit();
}

describeUserEvents('redis', async ({ now }) => {
  const redis = await createTestRedis();
  const a = await openInstance(redis, 'a', { now });
  const b = await openInstance(redis, 'b', { now });
  return {
    events: a.events,
    peer: b.events,
    cleanup: async () => {
      await closeInstance(a);
      await closeInstance(b);
      await redis.drop();
    },
  };
});

async function clientIdOf(client: Redis, name: string): Promise<string | undefined> {
  const list = (await client.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=${name} `));
  return line?.match(/^id=(\d+)/)?.[1];
}

describe('redis user events', () => {
  let redis: TestRedis | undefined;
  const opened: Opened[] = [];
  const open = async (name: string, options?: Parameters<typeof openInstance>[2]) => {
    redis ??= await createTestRedis();
    const one = await openInstance(redis, name, options);
    opened.push(one);
    return one;
  };
  afterEach(async () => {
    for (const one of opened.splice(0)) await closeInstance(one);
    await redis?.drop();
    redis = undefined;
  });

  it('keeps a stream per owner with entry ids `<id>-0`, a counter without TTL, a refreshed TTL', async () => {
    const { events } = await open('a');
    const client = (redis as TestRedis).client;
    const keys = userEventKeys((redis as TestRedis).prefix, 'alice');
    await events.publish('alice', changed(1));
    await events.publish('alice', changed(2));
    const entries = await client.xrange(keys.stream, '-', '+');
    expect(entries.map(([id]) => id)).toEqual(['1-0', '2-0']);
    expect(JSON.parse(entries[1]?.[1][1] as string)).toMatchObject(changed(2));
    expect(await client.get(keys.seq)).toBe('2');
    expect(await client.ttl(keys.seq)).toBe(-1);
    await client.expire(keys.stream, 10);
    await events.publish('alice', changed(3));
    expect(await client.ttl(keys.stream)).toBeGreaterThan(24 * 60 * 60 - 60);
  });

  it('a lost counter restarts after the last kept id: ids never go back', async () => {
    const { events } = await open('a');
    const client = (redis as TestRedis).client;
    const keys = userEventKeys((redis as TestRedis).prefix, 'alice');
    for (const n of range(1, 3)) await events.publish('alice', changed(n));
    await client.del(keys.seq);
    await events.publish('alice', changed(4));
    expect((await client.xrange(keys.stream, '-', '+')).map(([id]) => id)).toEqual([
      '1-0',
      '2-0',
      '3-0',
      '4-0',
    ]);
    expect(await client.get(keys.seq)).toBe('4');
  });

  it("an instance's publishes keep their order even when Redis has just lost its scripts", async () => {
    const a = (await open('a')).events;
    const seen = recorder();
    await a.follow('alice', 0, seen.listener);
    await (redis as TestRedis).client.script('FLUSH');
    // Published without waiting, with I/O let through in between: replies to earlier ones come
    // back while later ones are being sent.
    const publishes: Promise<void>[] = [];
    for (const n of range(1, 30)) {
      publishes.push(a.publish('alice', changed(n)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(publishes);
    await seen.reached(30);
    expect(seen.events.map((event) => (event.type === 'files_changed' ? event.fileIds[0] : ''))).toEqual(
      range(1, 30).map((n) => `f${n}`),
    );
  });

  it('a publish that fails goes to onError and does not reject', async () => {
    const errors: unknown[] = [];
    const { events, commands } = await open('a', { onError: (error) => errors.push(error) });
    const client = (redis as TestRedis).client;
    // A stream key holding a string: the script's XADD fails.
    await client.set(userEventKeys((redis as TestRedis).prefix, 'alice').stream, 'not a stream');
    await expect(events.publish('alice', changed(1))).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(commands.status).toBe('ready');
  });

  it('a follower survives its subscriber connection being killed: every event once, none missed', async () => {
    const a = (await open('a')).events;
    // B reconnects after 300 ms, long enough for A to publish while nobody listens.
    const b = await open('b', { retryMs: 300 });
    const client = (redis as TestRedis).client;
    const live = userEventKeys((redis as TestRedis).prefix, 'alice').live;
    const seen = recorder();
    await b.events.follow('alice', undefined, seen.listener);
    for (const n of range(1, 3)) await a.publish('alice', changed(n));
    await seen.reached(3);

    const id = await clientIdOf(client, b.subscriberName);
    expect(id).toBeDefined();
    await client.client('KILL', 'ID', id as string);
    for (const n of range(4, 6)) await a.publish('alice', changed(n));
    // Published to nobody: only the stream has 4..6.
    expect(await client.pubsub('NUMSUB', live)).toEqual([live, 0]);
    await seen.reached(6);
    expect(await clientIdOf(client, b.subscriberName)).not.toBe(id);
    for (const n of range(7, 9)) await a.publish('alice', changed(n));
    await seen.reached(9);
    expect(seen.ids()).toEqual(range(1, 9));
  });
});
