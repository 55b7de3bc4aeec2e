// Scale mode's turn log (turn-log.ts). Keys, per conversation c = {owner:conversationId} (one hash
// slot):
//   P turn:c          HASH turnId, instance, running 1|0, followers
//   P turn:c:events   STREAM of the turn's events, ids <seq>-0, field json
//   P turn:c:live     channel: "<seq> <json>" per event, "end" at the end
// A running turn's keys live for a lease the instance running it renews (every event, and a
// keepalive while the model thinks): when that instance dies, they expire, the conversation is
// free again, and followers see the turn gone and end it as lost. An ended turn's keys stay
// readable for keepEndedMs.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '@ferry/contract';
import type { Redis } from 'ioredis';
import { runScript } from '../calls/redis-call-scripts.js';
import { createChannelSubscriptions } from '../calls/redis-channel-subscriptions.js';
import {
  DEFAULT_ENDED_TURN_KEEP_MS,
  DEFAULT_TURN_EVENTS,
  type TurnLog,
  type TurnRecord,
} from './turn-log.js';

const END_MESSAGE = 'end';

/** KEYS hash, events. ARGV turnId, instance, lease ms. */
const BEGIN = `
if redis.call('HGET', KEYS[1], 'running') == '1' then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'turnId', ARGV[1], 'instance', ARGV[2], 'running', '1', 'followers', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

const IS_CURRENT = `
if redis.call('HGET', KEYS[1], 'turnId') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'running') ~= '1' then
  return 0
end
`;

/** KEYS hash, events. ARGV turnId, seq, json, lease ms, max events, live channel. */
const APPEND = `${IS_CURRENT}
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], ARGV[2] .. '-0', 'json', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[6], ARGV[2] .. ' ' .. ARGV[3])
return 1
`;

/** KEYS hash, events. ARGV turnId, lease ms. */
const KEEPALIVE = `${IS_CURRENT}
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1
`;

/** KEYS hash, events. ARGV turnId, keep ms, live channel. */
const END = `${IS_CURRENT}
redis.call('HSET', KEYS[1], 'running', '0')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
redis.call('PUBLISH', ARGV[3], '${END_MESSAGE}')
return 1
`;

/** KEYS hash. ARGV +1 or -1. Never makes a hash that expired (it would have no TTL). */
const FOLLOWERS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], 'followers', ARGV[1])
`;

export interface RedisTurnLogOptions {
  /** The commands connection (borrowed). */
  redis: Redis;
  /** Opens the subscriber connection, on the first follow; closed by close(). */
  openSubscriber: () => Promise<Redis>;
  prefix: string;
  /** How long a running turn's keys outlive its last sign of life. @default 30 s */
  leaseMs?: number;
  /** How often a follower checks that the turn it follows still exists. @default leaseMs / 3 */
  checkMs?: number;
  maxEvents?: number;
  keepEndedMs?: number;
  onError?: (error: unknown) => void;
}

function turnKeys(prefix: string, owner: string, conversationId: string) {
  const hash = `${prefix}turn:{${owner}:${conversationId}}`;
  return { hash, events: `${hash}:events`, live: `${hash}:live` };
}

export function createRedisTurnLog(options: RedisTurnLogOptions): TurnLog {
  const { redis, prefix } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const checkMs = options.checkMs ?? Math.max(50, Math.floor(leaseMs / 3));
  const maxEvents = options.maxEvents ?? DEFAULT_TURN_EVENTS;
  const keepEndedMs = options.keepEndedMs ?? DEFAULT_ENDED_TURN_KEEP_MS;
  const onError = options.onError ?? (() => {});
  const subscriptions = createChannelSubscriptions(options.openSubscriber, onError);
  // Keepalives of the turns this instance runs (a long model answer has no event for a while).
  const leases = new Map<string, NodeJS.Timeout>();

  const recordOf = (fields: (string | null)[]): TurnRecord | undefined => {
    const [turnId, instance, running] = fields;
    if (!turnId || !instance) return undefined;
    return { turnId, instance, running: running === '1' };
  };
  const readRecord = async (owner: string, conversationId: string) =>
    recordOf(
      await redis.hmget(turnKeys(prefix, owner, conversationId).hash, 'turnId', 'instance', 'running'),
    );

  const eventsAfter = async (owner: string, conversationId: string, after: number) => {
    const entries = await redis.xrange(turnKeys(prefix, owner, conversationId).events, `${after + 1}-0`, '+');
    const events: { seq: number; event: AgentEvent }[] = [];
    for (const [id, fields] of entries) {
      const json = fields[fields.indexOf('json') + 1];
      const parsed = json === undefined ? undefined : parseEvent(json);
      if (parsed) events.push({ seq: Number.parseInt(id, 10), event: parsed });
    }
    return events;
  };

  return {
    async begin(owner, conversationId, instance) {
      const keys = turnKeys(prefix, owner, conversationId);
      const turnId = randomUUID();
      const begun = await runScript(redis, BEGIN, [keys.hash, keys.events], [turnId, instance, leaseMs]);
      if (begun !== 1) return undefined;
      const timer = setInterval(
        () => {
          runScript(redis, KEEPALIVE, [keys.hash, keys.events], [turnId, leaseMs]).catch(onError);
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      );
      timer.unref();
      leases.set(turnId, timer);
      return turnId;
    },

    async append(owner, conversationId, turnId, seq, event) {
      const keys = turnKeys(prefix, owner, conversationId);
      const result = await runScript(
        redis,
        APPEND,
        [keys.hash, keys.events],
        [turnId, seq, JSON.stringify(event), leaseMs, maxEvents, keys.live],
      );
      return result === 1;
    },

    async end(owner, conversationId, turnId) {
      clearInterval(leases.get(turnId));
      leases.delete(turnId);
      const keys = turnKeys(prefix, owner, conversationId);
      await runScript(redis, END, [keys.hash, keys.events], [turnId, keepEndedMs, keys.live]);
    },

    get: readRecord,

    async runningAmong(owner, conversationIds) {
      if (conversationIds.length === 0) return new Set();
      const pipeline = redis.pipeline();
      for (const id of conversationIds) pipeline.hget(turnKeys(prefix, owner, id).hash, 'running');
      const answers = (await pipeline.exec()) ?? [];
      return new Set(conversationIds.filter((_, index) => answers[index]?.[1] === '1'));
    },

    async follow(owner, conversationId, after, listener) {
      const keys = turnKeys(prefix, owner, conversationId);
      let sent = after;
      let done = false;
      let turnId: string | undefined;
      let unsubscribe = () => {};
      let timer: NodeJS.Timeout | undefined;
      const stop = () => {
        if (done) return;
        done = true;
        clearInterval(timer);
        unsubscribe();
        runScript(redis, FOLLOWERS, [keys.hash], [-1]).catch(onError);
      };
      const deliver = (seq: number, event: AgentEvent) => {
        if (done || seq <= sent) return;
        sent = seq;
        listener.event(seq, event);
      };
      const finish = (how: 'finished' | 'lost') => {
        if (done) return;
        stop();
        listener.end(how);
      };
      // Live messages wait while a replay reads the stream, then go out after it.
      let held: { seq: number; event: AgentEvent }[] | undefined = [];
      let endHeld = false;
      const replay = async () => {
        held ??= [];
        const [record, events] = await Promise.all([
          readRecord(owner, conversationId),
          eventsAfter(owner, conversationId, sent),
        ]);
        if (done) return;
        turnId ??= record?.turnId;
        for (const { seq, event } of events) deliver(seq, event);
        const waiting = held;
        held = undefined;
        for (const { seq, event } of waiting.sort((x, y) => x.seq - y.seq)) deliver(seq, event);
        if (!record || record.turnId !== turnId) finish('lost');
        else if (!record.running || endHeld) finish('finished');
      };
      unsubscribe = await subscriptions.subscribe(keys.live, {
        message(text) {
          if (text === END_MESSAGE) {
            // The end after every event: a replay under way delivers them first.
            if (held) endHeld = true;
            else
              void replay().catch((error: unknown) => {
                onError(error);
                finish('finished');
              });
            return;
          }
          const space = text.indexOf(' ');
          const event = space > 0 ? parseEvent(text.slice(space + 1)) : undefined;
          if (!event) return onError(new Error(`Turn of ${conversationId}: a live message that is not one`));
          const seq = Number(text.slice(0, space));
          if (held) held.push({ seq, event });
          else deliver(seq, event);
        },
        resumed() {
          replay().catch(onError);
        },
      });
      const known = await readRecord(owner, conversationId).catch((error: unknown) => {
        unsubscribe();
        throw error;
      });
      if (!known) {
        done = true;
        unsubscribe();
        return undefined;
      }
      turnId = known.turnId;
      await runScript(redis, FOLLOWERS, [keys.hash], [1]);
      try {
        await replay();
      } catch (error) {
        stop();
        throw error;
      }
      // The instance running it may die: then its keys expire and nobody would say "end".
      timer = setInterval(() => {
        readRecord(owner, conversationId)
          .then((record) => {
            if (!record || record.turnId !== turnId) finish('lost');
            else if (!record.running) return replay();
          })
          .catch(onError);
      }, checkMs);
      timer.unref();
      return stop;
    },

    async followers(owner, conversationId) {
      return Number((await redis.hget(turnKeys(prefix, owner, conversationId).hash, 'followers')) ?? 0);
    },

    async close() {
      for (const timer of leases.values()) clearInterval(timer);
      leases.clear();
      await subscriptions.close();
    },
  };
}

function parseEvent(json: string): AgentEvent | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === 'object' &&
      value !== null &&
      typeof (value as { type?: unknown }).type === 'string'
      ? (value as AgentEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
