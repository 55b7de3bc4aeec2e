// The reaper of scale mode: the calls of an instance that died (SIGKILL, a crash, a network cut
// past its liveness TTL) must still end, for every follower on the other instances, and free
// their running slots. Every instance runs it every heartbeat: for each member of `P instances`
// other than itself whose liveness key is gone, it reaps each call in `P instance:<iid>:calls`
// (the store's REAP script: a `failed` event, then settled as failed) and then forgets the
// instance. Two reapers at once are safe: the script's fence lets one of them end each call, and
// forgetting checks again, in one script, that the instance is still gone and has no call left.
import { type CallEvent, errorEnvelope, type ToolCallResponse } from '@ferry/contract';
import { answerFromError } from '@ferry/host';
import type { Redis } from 'ioredis';
import { FORGET_INSTANCE, instanceCallsKey, runScript } from '../calls/redis-call-scripts.js';
import type { ReapEvent, RedisCallStore } from '../calls/redis-call-store.js';
import { instanceKeys } from './redis-connection.js';

export interface RedisReaperOptions {
  /** The commands connection (borrowed). */
  redis: Redis;
  prefix: string;
  /** This instance: never reaped by itself. */
  self: string;
  /** How often to look; the instance bus's heartbeat. */
  intervalMs: number;
  /** How long an instance stays silent before its key is gone (said in the failure message). */
  silentMs: number;
  /** The store the calls live in; undefined while none was created (then there is nothing to reap). */
  store: () => RedisCallStore | undefined;
  now?: () => number;
  /** A round that failed (Redis away): the next one tries again. */
  onError?: (error: unknown) => void;
  /**
   * A call this instance ended for a dead one, with its owner and the `failed` event as appended:
   * the owner's event stream must hear it (the dead instance published the call's other events).
   */
  onReaped?: (reaped: { callId: string; instance: string; owner: string; event: CallEvent }) => void;
}

export interface RedisReaper {
  /** One round now; resolves with the number of calls this round ended. */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a round under way (it borrows connections about to close). */
  stop(): Promise<void>;
}

/** Starts the timer (unref'd: it never keeps a process alive). */
export function startRedisReaper(options: RedisReaperOptions): RedisReaper {
  const { redis, prefix, self } = options;
  const now = options.now ?? Date.now;
  const keys = instanceKeys(prefix);
  const message = `The Ferry instance running this call stopped (no heartbeat for ${seconds(options.silentMs)} s)`;
  let round: Promise<number> | undefined;
  let stopped = false;

  const reapInstance = async (store: RedisCallStore, instance: string): Promise<number> => {
    let reaped = 0;
    for (const callId of await redis.smembers(instanceCallsKey(prefix, instance))) {
      const at = new Date(now());
      const event: ReapEvent = {
        type: 'failed',
        code: 'E_INTERNAL',
        message,
        retryable: true,
        callId,
        at: at.toISOString(),
      };
      const ended = await store.reap(callId, instance, event, instanceLost(callId, instance, message), at);
      if (ended) {
        reaped += 1;
        options.onReaped?.({ callId, instance, ...ended });
      }
    }
    await runScript(
      redis,
      FORGET_INSTANCE,
      [keys.alive(instance), keys.instances, instanceCallsKey(prefix, instance)],
      [instance],
    );
    return reaped;
  };

  const once = async (): Promise<number> => {
    const store = options.store();
    if (!store) return 0;
    let reaped = 0;
    for (const instance of await redis.smembers(keys.instances)) {
      if (stopped) break;
      if (instance === self || (await redis.exists(keys.alive(instance))) === 1) continue;
      reaped += await reapInstance(store, instance);
    }
    return reaped;
  };

  // One round at a time: a slow Redis must not pile them up.
  const sweep = () => {
    round ??= once().finally(() => {
      round = undefined;
    });
    return round;
  };

  const timer = setInterval(() => {
    if (!round) sweep().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs);
  timer.unref();

  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round?.catch(() => undefined);
    },
  };
}

/** The outcome of a reaped call: the same answer shape as every other failed call. */
export function instanceLost(callId: string, instance: string, message: string): ToolCallResponse {
  return {
    callId,
    status: 'failed',
    ...answerFromError(errorEnvelope('E_INTERNAL', { reason: 'instance_lost', instance }, message)),
  };
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
