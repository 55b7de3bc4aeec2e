// One subscriber connection shared by every follower of a store, with channels counted by
// handler: the first handler of a channel SUBSCRIBEs, the last one gone UNSUBSCRIBEs. Pub/sub is
// at most once: what is published while the connection is down is lost. So after a drop, once
// the channels are subscribed again, each handler hears `resumed()` and reads what it missed from
// where it keeps it (a call's stream). The connection is opened on the first subscribe through
// the given factory and closed by `close()`: it is this module's alone.
import type { Redis } from 'ioredis';
import { closeRedisConnection } from '../shared/redis-connection.js';

export interface ChannelHandler {
  message(text: string): void;
  /** The connection came back and the channel is subscribed again: messages may have been lost. */
  resumed(): void;
}

export interface ChannelSubscriptions {
  /**
   * Adds a handler; resolves once the channel is subscribed, so that what is published from then
   * on reaches it. The returned function removes it (safe to call twice).
   */
  subscribe(channel: string, handler: ChannelHandler): Promise<() => void>;
  /** Hands a message to this process's handlers of a channel, as if it came from Redis. */
  dispatch(channel: string, text: string): void;
  /** Closes the connection (handlers hear nothing more). */
  close(): Promise<void>;
}

interface Channel {
  handlers: Set<ChannelHandler>;
  subscribed: Promise<unknown>;
}

export function createChannelSubscriptions(
  openSubscriber: () => Promise<Redis>,
  onError: (error: unknown) => void,
): ChannelSubscriptions {
  const channels = new Map<string, Channel>();
  let connection: Promise<Redis> | undefined;
  let closed = false;

  const connect = () => {
    if (connection) return connection;
    const opening = openSubscriber().then((redis) => {
      let dropped = false;
      redis.on('message', (channel: string, text: string) => dispatch(channel, text));
      redis.on('close', () => {
        dropped = true;
      });
      redis.on('ready', () => {
        if (!dropped || closed) return;
        dropped = false;
        void resubscribe(redis);
      });
      return redis;
    });
    // A failed open is not kept: the next follower tries again.
    opening.catch(() => {
      if (connection === opening) connection = undefined;
    });
    connection = opening;
    return opening;
  };

  // SUBSCRIBE is idempotent, so this holds whether or not ioredis re-subscribed by itself
  // (autoResubscribe); only once Redis has confirmed may the handlers read what they missed.
  const resubscribe = async (redis: Redis) => {
    const names = [...channels.keys()];
    if (names.length === 0) return;
    try {
      await redis.subscribe(...names);
    } catch (error) {
      onError(error);
      return;
    }
    for (const name of names) {
      for (const handler of channels.get(name)?.handlers ?? []) handler.resumed();
    }
  };

  const dispatch = (channel: string, text: string) => {
    for (const handler of channels.get(channel)?.handlers ?? []) handler.message(text);
  };

  return {
    async subscribe(name, handler) {
      if (closed) throw new Error('The call store is closed');
      const redis = await connect();
      let channel = channels.get(name);
      if (!channel) {
        channel = { handlers: new Set(), subscribed: redis.subscribe(name) };
        channels.set(name, channel);
      }
      channel.handlers.add(handler);
      const current = channel;
      const remove = () => {
        if (!current.handlers.delete(handler) || current.handlers.size > 0) return;
        if (channels.get(name) === current) channels.delete(name);
        // Sent after the SUBSCRIBE on the same connection, so Redis sees them in this order; a
        // later subscribe of the same channel sends its SUBSCRIBE after this one.
        if (!closed) redis.unsubscribe(name).catch(onError);
      };
      try {
        await current.subscribed;
      } catch (error) {
        remove();
        throw error;
      }
      return remove;
    },
    dispatch,
    async close() {
      if (closed) return;
      closed = true;
      channels.clear();
      const redis = await connection?.catch(() => undefined);
      if (redis) await closeRedisConnection(redis);
    },
  };
}
