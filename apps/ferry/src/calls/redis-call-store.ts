// The CallStore of scale mode: N Ferry instances share their calls through Redis (keys and
// scripts: redis-call-scripts.ts). Any instance lists, reads and follows any call; only the one
// that runs a call appends to it and settles it (the fence in both scripts), and the running
// limit is checked and taken in one script, so it holds across instances.
// Retention: a settled call's keys get a TTL of keepFinishedMinutes from its finishedAt (by this
// store's clock), so Redis forgets them even if no instance sweeps; sweep() forgets the same ones
// by the same clock, and the oldest finished beyond maxKeptCalls, across the whole prefix.
// Connections: `redis` (commands) is borrowed and never closed here; the subscriber is opened
// through `openSubscriber` on the first follow and closed by close().
import { randomUUID } from 'node:crypto';
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import type { Redis } from 'ioredis';
import { instanceKeys } from '../shared/redis-connection.js';
import {
  type CallFollower,
  type CallListener,
  type CallStore,
  type CallStoreLimits,
  createCallFollower,
  tooManyCalls,
} from './call-store.js';
import { eventsOfEntries, fieldsToObject, parseEvent, snapshotOf } from './redis-call-records.js';
import {
  APPEND,
  CREATE,
  callKeys,
  END_MESSAGE,
  finishedKey,
  instanceCallsKey,
  LIST,
  READ_FROM,
  REAP,
  runScript,
  SETTLE,
  SWEEP,
  userKeys,
} from './redis-call-scripts.js';
import { createChannelSubscriptions } from './redis-channel-subscriptions.js';

export interface RedisCallStoreOptions {
  /** The commands connection (scripts, reads). Borrowed: the store never closes it. */
  redis: Redis;
  /**
   * Opens the store's own subscriber connection, on the first follow of a running call. The store
   * closes it in close(). Retrying reconnects (ioredis's default) let followers survive a drop.
   */
  openSubscriber: () => Promise<Redis>;
  /** Start of every key and channel, e.g. `ferry:`. */
  prefix: string;
  limits: CallStoreLimits;
  /** The clock of time retention. @default Date.now */
  now?: () => number;
  /** A follower could not catch up after a reconnect, or a live message was not a call event. */
  onError?: (error: unknown) => void;
}

/** The `failed` event a reaper appends; its seq is the call's lastSeq + 1, known only in Redis. */
export type ReapEvent = Omit<Extract<CallEvent, { type: 'failed' }>, 'seq'>;

export interface RedisCallStore extends CallStore {
  /**
   * Ends a call of a dead instance (its liveness key is gone) as failed: appends `event`
   * with the next seq and settles with `response`, fenced as append and settle are. The call's
   * owner and the event as appended when this reaper ended it; undefined when the instance is
   * alive again, or the call is not its running one (then the call leaves the instance's set: the
   * reaper need not look at it again).
   */
  reap(
    callId: string,
    instance: string,
    event: ReapEvent,
    response: ToolCallResponse,
    at: Date,
  ): Promise<{ owner: string; event: CallEvent } | undefined>;
  /** Closes the subscriber connection; followers hear nothing more (not even `end`). */
  close(): Promise<void>;
}

export function createRedisCallStore(options: RedisCallStoreOptions): RedisCallStore {
  const { redis, prefix, limits } = options;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  const subscriptions = createChannelSubscriptions(options.openSubscriber, onError);

  /** Milliseconds a call finished at `finishedAt` is still kept (at least 1: PEXPIRE refuses 0). */
  const keptFor = (finishedAt: number) =>
    Math.max(1, Math.ceil(finishedAt + limits.keepFinishedMinutes * 60_000 - now()));

  /** The call's status ('' when unknown) and its events from `after + 1`, read as one snapshot. */
  const readFrom = async (callId: string, after: number) => {
    const keys = callKeys(prefix, callId);
    const [status, entries] = (await runScript(
      redis,
      READ_FROM,
      [keys.call, keys.events],
      [firstId(after)],
    )) as [string, unknown];
    return { status, events: eventsOfEntries(callId, entries) };
  };

  return {
    async create(call, maxRunning) {
      const callId = randomUUID();
      const user = userKeys(prefix, call.owner);
      const startedAt = call.startedAt.getTime();
      const result = (await runScript(
        redis,
        CREATE,
        [callKeys(prefix, callId).call, user.running, user.calls, instanceCallsKey(prefix, call.instance)],
        [maxRunning, callId, call.owner, call.username, call.server, call.tool, startedAt, call.instance],
      )) as number;
      if (result >= 0) throw tooManyCalls(maxRunning, result);
      return { ...call, startedAt: new Date(startedAt), callId, status: 'running', lastSeq: 0 };
    },

    async append(callId, instance, event) {
      if (!Number.isSafeInteger(event.seq) || event.seq < 1) {
        throw new Error(`Call event seq must be a positive integer (got ${event.seq})`);
      }
      const keys = callKeys(prefix, callId);
      const json = JSON.stringify(event);
      const result = (await runScript(
        redis,
        APPEND,
        [keys.call, keys.events, keys.progress],
        [instance, event.seq, event.type, json, limits.maxEventsPerCall, keys.live],
      )) as number;
      if (result === -1) {
        throw new Error(`Call ${callId}: event seq ${event.seq} does not follow the last one appended`);
      }
      // This instance's followers get the event before append resolves, as with the memory
      // store; the copy that comes back through Redis is dropped as already sent.
      if (result === 1) subscriptions.dispatch(keys.live, json);
      return result === 1;
    },

    async settle(callId, instance, response, at) {
      const keys = callKeys(prefix, callId);
      const finishedAt = at.getTime();
      const result = (await runScript(
        redis,
        SETTLE,
        [keys.call, keys.events, keys.progress, finishedKey(prefix)],
        [
          instance,
          response.status,
          JSON.stringify(response),
          finishedAt,
          keptFor(finishedAt),
          prefix,
          callId,
          keys.live,
        ],
      )) as number;
      if (result === 1) subscriptions.dispatch(keys.live, END_MESSAGE);
      return result === 1;
    },

    async reap(callId, instance, event, response, at) {
      const keys = callKeys(prefix, callId);
      const finishedAt = at.getTime();
      const result = (await runScript(
        redis,
        REAP,
        [
          keys.call,
          keys.events,
          keys.progress,
          finishedKey(prefix),
          instanceKeys(prefix).alive(instance),
          instanceCallsKey(prefix, instance),
        ],
        [
          instance,
          JSON.stringify(event),
          JSON.stringify(response),
          finishedAt,
          keptFor(finishedAt),
          prefix,
          callId,
          keys.live,
          limits.maxEventsPerCall,
        ],
      )) as 0 | [number, string];
      // This instance's followers hear the event and the end through Redis: the seq was made there.
      if (!Array.isArray(result)) return undefined;
      const [seq, owner] = result;
      return { owner, event: { ...event, seq } as CallEvent };
    },

    async get(owner, callId) {
      const hash = await redis.hgetall(callKeys(prefix, callId).call);
      if (hash.owner !== owner) return undefined;
      return snapshotOf(callId, hash);
    },

    async list(owner) {
      const rows = (await runScript(redis, LIST, [userKeys(prefix, owner).calls], [prefix])) as [
        string,
        string[],
      ][];
      return rows
        .map(([callId, fields]) => snapshotOf(callId, fieldsToObject(fields)))
        .filter((snapshot) => snapshot.owner === owner);
    },

    async eventsAfter(callId, after) {
      const entries = await redis.xrange(callKeys(prefix, callId).events, firstId(after), '+');
      return eventsOfEntries(callId, entries);
    },

    async follow(callId, after, listener) {
      // Every path of delivery (the first replay, the live channel, this instance's own appends,
      // a replay after a reconnect) goes through `sink`, which keeps each seq once, ascending.
      let sent = after;
      let done = false;
      let unsubscribe = () => {};
      const sink: CallListener = {
        event(event) {
          if (done || event.seq <= sent) return;
          sent = event.seq;
          listener.event(event);
        },
        end() {
          if (done) return;
          done = true;
          unsubscribe();
          listener.end();
        },
      };
      // One follower per replay: a replay (after a reconnect) starts a new one from what was sent,
      // which holds back the live messages until its snapshot is delivered; an older replay still
      // under way finds itself replaced and delivers nothing.
      let current: CallFollower = createCallFollower(after, sink);
      const replay = async () => {
        const follower = createCallFollower(sent, sink);
        current = follower;
        const { status, events } = await readFrom(callId, sent);
        if (current !== follower || done) return;
        if (status !== 'running') follower.end();
        follower.replay(events);
      };
      // Subscribed before the first read: whatever is published after it is heard, whatever was
      // published before it is in the stream the read sees.
      unsubscribe = await subscriptions.subscribe(callKeys(prefix, callId).live, {
        message(text) {
          if (text === END_MESSAGE) return current.end();
          const event = parseEvent(text);
          if (event) current.event(event);
          else onError(new Error(`Call ${callId}: a live message that is not a call event`));
        },
        resumed() {
          replay().catch(onError);
        },
      });
      try {
        await replay();
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

    async sweep() {
      const cutoff = now() - limits.keepFinishedMinutes * 60_000;
      await runScript(redis, SWEEP, [finishedKey(prefix)], [cutoff, limits.maxKeptCalls, prefix]);
    },

    close: () => subscriptions.close(),
  };
}

/** The stream id just after seq `after` (ids are `<seq>-0`). */
const firstId = (after: number) => (after < 0 ? '-' : `${Math.floor(after) + 1}-0`);
