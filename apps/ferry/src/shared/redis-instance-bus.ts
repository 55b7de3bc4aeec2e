// The instance bus of scale mode, over Redis (keys: redis-connection.ts `instanceKeys`):
// - liveness: every heartbeat an instance sets `P instance:<id>` with a TTL of 3 heartbeats and
//   joins the `P instances` set; it is alive while the key exists (no clock compared across
//   machines). A graceful close deletes the key, so the others see it gone at once.
// - request: JSON on `P cmd:<target>`; the target runs its handler and answers on
//   `P reply:<asker>` with the request's id. Pub/sub is at most once: a PUBLISH that reached nobody
//   (the target's subscriber is reconnecting) is sent again while the target is alive, and a
//   request whose target's key vanishes while it waits fails as gone at the asker's next heartbeat.
//   An answer sent while the asker's own subscriber is away would be lost too, so the asker
//   publishes only while it listens. What still falls between (a drop after the PUBLISH) times out:
//   requests are not sent twice, since a handler need not be idempotent.
// - broadcast: JSON on `P bcast`; PUBLISH says how many subscribers received it, and the asker
//   waits for that many answers.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FerryError } from '@ferry/contract';
import type { Redis } from 'ioredis';
import { instanceCallsKey } from '../calls/redis-call-scripts.js';
import { type BusReply, encodeBusMessage, parseBusMessage } from './bus-messages.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type InstanceBus,
  InstanceGoneError,
  type InstanceHandler,
  noHandlerError,
  runHandler,
  toCrossingError,
  withTimeout,
} from './instance-bus.js';
import { PendingAnswers } from './pending-answers.js';
import {
  closeRedisConnection,
  type InstanceKeys,
  instanceKeys,
  openRedisConnection,
  type RedisRole,
} from './redis-connection.js';

/** @default 5 s; an instance is gone 3 heartbeats after its last one. */
const DEFAULT_HEARTBEAT_MS = 5_000;
export const TTL_HEARTBEATS = 3;

/** What the bus reports for logs and metrics; nothing here changes its behaviour. */
/** KEYS alive, instances, this instance's running calls. ARGV id. */
const LEAVE = `
redis.call('DEL', KEYS[1])
if redis.call('SCARD', KEYS[3]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
`;

export interface RedisInstanceBusObserver {
  connectionError?(role: RedisRole, error: Error): void;
  /** A connection dropped (ioredis reconnects by itself). */
  disconnected?(role: RedisRole): void;
  /** A connection is back after a drop (the subscriber: once its channels are subscribed again). */
  reconnected?(role: RedisRole): void;
  heartbeat?(): void;
  heartbeatFailed?(error: unknown): void;
  /** A handler threw something other than a FerryError (the asker gets E_INTERNAL). */
  handlerFailed?(kind: string, error: unknown): void;
  /** A message on a bus channel that is not one (another version, or someone else's publisher). */
  messageRejected?(channel: string, reason: string): void;
}

export interface RedisInstanceBusOptions {
  url: string;
  /** Start of every key and channel. @default 'ferry:' */
  prefix?: string;
  /** @default DEFAULT_HEARTBEAT_MS */
  heartbeatMs?: number;
  /** @default DEFAULT_REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
  /** Stored in the liveness key for operators (`GET P instance:<id>`). */
  publicUrl?: string;
  observer?: RedisInstanceBusObserver;
}

export interface RedisInstanceBus extends InstanceBus {
  readonly keys: InstanceKeys;
  /** The commands connection, for the other Redis parts of this instance to share. */
  readonly redis: Redis;
  /** PING on the commands connection (readiness). */
  ping(): Promise<void>;
  /**
   * Stops the heartbeat, leaves (deletes its liveness key, leaves `instances`), unsubscribes and
   * closes both connections. Requests still waiting reject.
   */
  close(): Promise<void>;
}

/** Opens both connections, subscribes, and sends the first heartbeat before it resolves. */
export async function createRedisInstanceBus(options: RedisInstanceBusOptions): Promise<RedisInstanceBus> {
  const id = randomUUID();
  const observer = options.observer ?? {};
  const open = (role: RedisRole) =>
    openRedisConnection({
      url: options.url,
      role,
      name: `ferry:${id}:${role}`,
      onError: (error) => observer.connectionError?.(role, error),
    });
  const redis = await open('commands');
  let subscriber: Redis;
  try {
    subscriber = await open('subscriber');
  } catch (error) {
    await closeRedisConnection(redis);
    throw error;
  }
  const bus = new RedisBus(id, redis, subscriber, options, observer);
  try {
    await bus.start();
  } catch (error) {
    await bus.close();
    throw error;
  }
  return bus;
}

class RedisBus implements RedisInstanceBus {
  readonly keys: InstanceKeys;
  private readonly prefix: string;
  private readonly handlers = new Map<string, InstanceHandler>();
  private readonly pending = new PendingAnswers();
  private readonly heartbeatMs: number;
  private readonly timeoutMs: number;
  private readonly liveness: string;
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  private closing: Promise<void> | undefined;
  /**
   * Resolved while the subscriber listens. While it is away an answer to this instance would be
   * lost (pub/sub keeps nothing), so requests and broadcasts wait for it before they publish.
   */
  private listening: Promise<void> = Promise.resolve();
  private heard: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly redis: Redis,
    private readonly subscriber: Redis,
    options: RedisInstanceBusOptions,
    private readonly observer: RedisInstanceBusObserver,
  ) {
    this.prefix = options.prefix ?? 'ferry:';
    this.keys = instanceKeys(this.prefix);
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.liveness = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      ...(options.publicUrl ? { url: options.publicUrl } : {}),
    });
  }

  private get channels(): string[] {
    return [this.keys.commands(this.id), this.keys.replies(this.id), this.keys.broadcast];
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, text: string) => this.receive(channel, text));
    await this.subscriber.subscribe(...this.channels);
    // These listeners come after the first connect, so `ready` here always means "back after a drop".
    this.subscriber.on('close', () => {
      if (this.closing) return;
      this.heard ??= this.deafen();
      this.observer.disconnected?.('subscriber');
    });
    this.subscriber.on('ready', () => {
      if (this.closing) return;
      this.subscriber.subscribe(...this.channels).then(
        () => {
          this.heard?.();
          this.heard = undefined;
          this.observer.reconnected?.('subscriber');
        },
        (error: Error) => this.observer.connectionError?.('subscriber', error),
      );
    });
    this.redis.on('close', () => {
      if (!this.closing) this.observer.disconnected?.('commands');
    });
    this.redis.on('ready', () => {
      if (this.closing) return;
      this.observer.reconnected?.('commands');
      void this.beat();
    });
    await this.writeLiveness();
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
  }

  /** Makes `listening` wait; returns what ends the wait. */
  private deafen(): () => void {
    let done = () => {};
    this.listening = new Promise<void>((resolve) => {
      done = resolve;
    });
    return done;
  }

  handle(kind: string, handler: InstanceHandler): void {
    if (this.handlers.has(kind)) throw new Error(`A handler for "${kind}" is already registered`);
    this.handlers.set(kind, handler);
  }

  async isAlive(instance: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.alive(instance))) === 1;
  }

  async request<T>(instance: string, kind: string, payload: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    this.assertOpen();
    if (instance === this.id) {
      const work = runHandler(this.handlers.get(kind), payload, { instance, kind }, (error) =>
        this.observer.handlerFailed?.(kind, error),
      );
      return (await withTimeout(
        work,
        timeoutMs,
        () => new InstanceGoneError(instance, kind, 'instance_timeout', timeoutMs),
      )) as T;
    }
    if (!(await this.isAlive(instance))) throw new InstanceGoneError(instance, kind, 'instance_gone');
    const { id, answer } = this.pending.expectRequest(instance, kind, timeoutMs);
    const message = encodeBusMessage({ type: 'request', id, from: this.id, kind, payload });
    this.publishUntilHeard(id, this.keys.commands(instance), message, instance).catch((error) =>
      this.pending.settle(id, error as Error),
    );
    return (await answer) as T;
  }

  async broadcast<T>(kind: string, payload: unknown, timeoutMs = this.timeoutMs): Promise<T[]> {
    this.assertOpen();
    const { id, answers, heardBy } = this.pending.expectBroadcast(kind, timeoutMs);
    const message = encodeBusMessage({ type: 'broadcast', id, from: this.id, kind, payload });
    this.publishUntilHeard(id, this.keys.broadcast, message).then(heardBy, (error) =>
      this.pending.settle(id, error as Error),
    );
    return (await answers) as T[];
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    clearInterval(this.timer);
    this.heard?.();
    this.pending.rejectAll(
      new FerryError('E_INTERNAL', 'This Ferry instance is stopping', { reason: 'bus_closed' }),
    );
    const bounded = (work: Promise<unknown>) =>
      withTimeout(work, 1_000, () => new Error('Redis did not answer in time')).catch(() => undefined);
    await bounded(this.subscriber.unsubscribe());
    // Calls of this instance that did not settle in the stop's grace keep it in the instance set:
    // another instance's reaper ends them (the liveness key is gone now) and then forgets it.
    await bounded(
      this.redis.eval(
        LEAVE,
        3,
        this.keys.alive(this.id),
        this.keys.instances,
        instanceCallsKey(this.prefix, this.id),
        this.id,
      ),
    );
    await Promise.all([closeRedisConnection(this.subscriber), closeRedisConnection(this.redis)]);
  }

  private assertOpen(): void {
    if (this.closing) {
      throw new FerryError('E_INTERNAL', 'This Ferry instance is stopping', { reason: 'bus_closed' });
    }
  }

  /** One heartbeat: the liveness key, then the pending requests whose target vanished meanwhile. */
  private async beat(): Promise<void> {
    // While Redis is away the last SET waits in ioredis's queue; one at a time, not a pile.
    if (this.beating || this.closing) return;
    this.beating = true;
    try {
      await this.writeLiveness();
      this.observer.heartbeat?.();
      await this.failRequestsToGone();
    } catch (error) {
      this.observer.heartbeatFailed?.(error);
    } finally {
      this.beating = false;
    }
  }

  private async writeLiveness(): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.alive(this.id), this.liveness, 'PX', this.heartbeatMs * TTL_HEARTBEATS)
      .sadd(this.keys.instances, this.id)
      .exec();
  }

  private async failRequestsToGone(): Promise<void> {
    for (const target of this.pending.targets()) {
      if (!(await this.isAlive(target))) this.pending.failTarget(target);
    }
  }

  /**
   * PUBLISH until at least one subscriber received it: nobody heard it while the target's (or,
   * for a broadcast, this instance's own) subscriber reconnects. A target that is no longer alive
   * is gone. Resolves with the number of receivers; gives up when the request settled (timeout).
   */
  private async publishUntilHeard(
    id: string,
    channel: string,
    message: string,
    target?: string,
  ): Promise<number> {
    let delay = 25;
    for (;;) {
      await this.listening;
      if (!this.pending.has(id)) return 0;
      const receivers = await this.redis.publish(channel, message);
      if (receivers > 0 || !this.pending.has(id)) return receivers;
      if (target !== undefined && !(await this.isAlive(target))) {
        throw new InstanceGoneError(target, this.pending.kindOf(id), 'instance_gone');
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 500);
    }
  }

  private receive(channel: string, text: string): void {
    const parsed = parseBusMessage(text);
    if (!parsed.ok) {
      this.observer.messageRejected?.(channel, parsed.reason);
      return;
    }
    const { message } = parsed;
    if (message.type === 'reply') this.pending.receive(message);
    else void this.answer(message.id, message.from, message.kind, message.payload);
  }

  /** Runs this instance's handler for a request or broadcast and publishes the answer to the asker. */
  private async answer(id: string, from: string, kind: string, payload: unknown): Promise<void> {
    if (this.closing) return;
    const handler = this.handlers.get(kind);
    const context = { instance: this.id, kind };
    let reply: BusReply;
    try {
      if (!handler) throw noHandlerError(this.id, kind);
      const value = await handler(payload);
      reply = { type: 'reply', id, instance: this.id, ok: true, value };
    } catch (error) {
      const crossing = toCrossingError(error, context, (cause) => this.observer.handlerFailed?.(kind, cause));
      reply = { type: 'reply', id, instance: this.id, ok: false, error: crossing };
    }
    try {
      await this.redis.publish(this.keys.replies(from), encodeBusMessage(reply));
    } catch (error) {
      this.observer.connectionError?.('commands', error as Error);
    }
  }
}
