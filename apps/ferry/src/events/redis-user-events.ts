// The user's event stream in scale mode: N Ferry instances publish and follow one stream per user
// through Redis. Keys (P = prefix):
//   P uev:<owner>        STREAM, entry id `<n>-0` (n = the event id clients send back as
//                        Last-Event-ID), field `e` = the event's JSON without its id; MAXLEN ~
//                        backlog, EXPIRE refreshed on each publish
//   P uev:<owner>:seq    STRING, the last id given; no TTL: ids must never go back while a client
//                        holds a Last-Event-ID
//   P uev:<owner>:live   channel: `<n> <JSON>` per event
// One script takes the id, appends and publishes: two instances publishing at once still give
// strictly increasing ids, and the channel's order is the stream's.
// Connections: `redis` (commands) is borrowed and never closed here; the subscriber is opened
// through `openSubscriber` on the first follow and closed by close().
import type { UserEvent } from '@ferry/contract';
import type { Redis } from 'ioredis';
import { createChannelSubscriptions } from '../calls/redis-channel-subscriptions.js';
import type { UserEvents } from './user-events.js';

export interface RedisUserEventsOptions {
  /** The commands connection. Borrowed: never closed here. */
  redis: Redis;
  /** Opens the subscriber connection, on the first follow; closed by close(). */
  openSubscriber: () => Promise<Redis>;
  /** Start of every key and channel, e.g. `ferry:`. */
  prefix: string;
  /** Events kept per user for replay (approximately: Redis trims whole nodes). @default 200 */
  backlog?: number;
  /** How long a user's kept events outlive their last publish. @default 24 h */
  ttlSeconds?: number;
  now?: () => number;
  /** A publish that failed, a follower that could not catch up after a reconnect, a bad message. */
  onError?: (error: unknown) => void;
}

export interface RedisUserEvents extends UserEvents {
  /** Closes the subscriber connection; followers hear nothing more. */
  close(): Promise<void>;
}

export function userEventKeys(prefix: string, owner: string) {
  const stream = `${prefix}uev:${owner}`;
  return { stream, seq: `${stream}:seq`, live: `${stream}:live` };
}

/**
 * KEYS: stream, seq. ARGV: event JSON (without id), backlog, ttl seconds, live channel.
 * Returns the id given. A seq lost while the stream stayed (eviction, a partial restore) restarts
 * after the stream's last id, so XADD is never refused and ids never go back.
 */
const PUBLISH = `
local n = redis.call('INCR', KEYS[2])
if n == 1 then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  if last then
    local previous = tonumber(string.match(last[1], '^(%d+)'))
    if previous >= n then
      n = previous + 1
      redis.call('SET', KEYS[2], n)
    end
  end
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], n .. '-0', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], n .. ' ' .. ARGV[1])
return n
`;

export function createRedisUserEvents(options: RedisUserEventsOptions): RedisUserEvents {
  const { redis, prefix } = options;
  const backlog = options.backlog ?? 200;
  const ttlSeconds = options.ttlSeconds ?? 24 * 60 * 60;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  const subscriptions = createChannelSubscriptions(options.openSubscriber, onError);

  const eventsAfter = async (owner: string, after: number) => {
    const entries = await redis.xrange(
      userEventKeys(prefix, owner).stream,
      `${Math.floor(after) + 1}-0`,
      '+',
    );
    return entries.map(([id, fields]) => {
      const json = fields[0] === 'e' ? fields[1] : undefined;
      const event = json === undefined ? undefined : eventOf(Number(id.split('-')[0]), json);
      if (!event) throw new Error(`User events of ${owner}: entry ${id} is not a user event`);
      return event;
    });
  };

  return {
    async publish(owner, body) {
      const keys = userEventKeys(prefix, owner);
      const json = JSON.stringify({ ...body, at: new Date(now()).toISOString() });
      try {
        // EVAL, not EVALSHA with a fallback: a NOSCRIPT retry (after a Redis restart) would let a
        // later publish of this instance overtake an earlier one. One connection, one EVAL each:
        // Redis runs them in the order they were called. (Redis caches the compiled script.)
        await redis.eval(PUBLISH, 2, keys.stream, keys.seq, json, backlog, ttlSeconds, keys.live);
      } catch (error) {
        onError(error);
      }
    },

    async follow(owner, after, listener) {
      const keys = userEventKeys(prefix, owner);
      // Live only: from the last id given before subscribing; what is published in between is
      // read back from the stream like any replay.
      let sent = after ?? Number((await redis.get(keys.seq)) ?? 0);
      let done = false;
      // Every path (replay, live, replay after a reconnect) goes through here: each id once, ascending.
      const deliver = (event: UserEvent) => {
        if (done || event.id <= sent) return;
        sent = event.id;
        try {
          listener(event);
        } catch {
          // One broken stream must not stop the others.
        }
      };
      // Live messages wait here while a replay reads the stream, and are then sent after it.
      let held: UserEvent[] | undefined = [];
      let generation = 0;
      const replay = async (first: boolean) => {
        const mine = ++generation;
        held ??= [];
        let events: UserEvent[] = [];
        try {
          events = await eventsAfter(owner, sent);
        } catch (error) {
          // The first read fails the follow; after a reconnect the live ones still go out, after
          // a gap this reports.
          if (first) throw error;
          if (mine === generation) onError(error);
        }
        // A newer replay (a second reconnect) takes over, from what was sent by then.
        if (mine !== generation || done) return;
        for (const event of events) deliver(event);
        const waiting = held;
        held = undefined;
        for (const event of waiting.sort((x, y) => x.id - y.id)) deliver(event);
      };
      // Subscribed before the first read: whatever is published after it is heard, whatever was
      // published before it is in the stream the read sees.
      const unsubscribe = await subscriptions.subscribe(keys.live, {
        message(text) {
          const space = text.indexOf(' ');
          const event = space > 0 ? eventOf(Number(text.slice(0, space)), text.slice(space + 1)) : undefined;
          if (!event) return onError(new Error(`User events of ${owner}: a live message that is not one`));
          if (held) held.push(event);
          else deliver(event);
        },
        resumed() {
          void replay(false);
        },
      });
      try {
        await replay(true);
      } catch (error) {
        done = true;
        unsubscribe();
        throw error;
      }
      return () => {
        done = true;
        unsubscribe();
      };
    },

    async forget(owner) {
      const keys = userEventKeys(prefix, owner);
      await redis.del(keys.stream, keys.seq);
    },

    close: () => subscriptions.close(),
  };
}

/** The stored JSON (without id) as the event with id `id`; undefined when it is not one of ours. */
function eventOf(id: number, json: string): UserEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(id) || id < 1 || typeof value !== 'object' || value === null) return undefined;
  const { at, ...body } = value as Record<string, unknown>;
  if (typeof body.type !== 'string' || typeof at !== 'string') return undefined;
  // The memory store's key order: body, id, at.
  return { ...body, id, at } as UserEvent;
}
