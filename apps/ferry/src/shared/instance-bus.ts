// Commands between Ferry instances: "cancel this call", "here is the answer to your question",
// "a user was deleted, everyone forget them". The embedded default is one instance, so its bus
// (below) calls its own handlers; scale mode's bus (redis-instance-bus.ts) carries the same
// requests over Redis pub/sub. Either way a handler's FerryError reaches the asker with the same
// code, message and details, so a route answers the same status from any instance.
import { FerryError, isFerryErrorCode } from '@ferry/contract';

export type InstanceHandler = (payload: unknown) => Promise<unknown>;

export interface InstanceBus {
  /** This instance. */
  readonly id: string;
  /** Handles requests addressed to this instance (and broadcasts) of this kind. */
  handle(kind: string, handler: InstanceHandler): void;
  /** Asks `instance`; rejects with InstanceGoneError when it is not alive, or on timeout. */
  request<T>(instance: string, kind: string, payload: unknown, timeoutMs?: number): Promise<T>;
  /** Every live instance (this one too) runs `kind`; resolves with their answers. */
  broadcast<T>(kind: string, payload: unknown, timeoutMs?: number): Promise<T[]>;
  isAlive(instance: string): Promise<boolean>;
}

/** @default 10 s: what an instance waits for another's answer. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export type InstanceGoneReason = 'instance_gone' | 'instance_timeout';

/**
 * The instance asked did not answer: it is not alive (no heartbeat: stopped or crashed), or it
 * did not answer in time. Callers that own state of that instance (its calls) may reap it when
 * `reason` is 'instance_gone'; a timeout only says it is slow or cut off.
 */
export class InstanceGoneError extends FerryError {
  readonly instance: string;
  readonly reason: InstanceGoneReason;

  constructor(instance: string, kind: string, reason: InstanceGoneReason, timeoutMs?: number) {
    super(
      'E_INTERNAL',
      reason === 'instance_gone'
        ? `Ferry instance ${instance} is gone (no heartbeat), so it cannot answer "${kind}"`
        : `Ferry instance ${instance} did not answer "${kind}" within ${timeoutMs} ms`,
      { reason, instance, kind },
    );
    this.instance = instance;
    this.reason = reason;
  }
}

/** What crosses between instances in place of a thrown error. */
export interface CrossingError {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/**
 * A handler's error as it crosses: a FerryError keeps code, message and details; anything else
 * is an internal error whose text stays on the instance it happened on (it may name paths or
 * hosts), reported there through `report`.
 */
export function toCrossingError(
  error: unknown,
  context: { instance: string; kind: string },
  report?: (error: unknown) => void,
): CrossingError {
  if (error instanceof FerryError)
    return { code: error.code, message: error.message, details: error.details };
  report?.(error);
  return {
    code: 'E_INTERNAL',
    message: `The handler of "${context.kind}" failed on Ferry instance ${context.instance}`,
    details: { reason: 'handler_failed', instance: context.instance, kind: context.kind },
  };
}

/** The asking side: the error thrown to the caller. An unknown code (a newer peer) is internal. */
export function fromCrossingError(crossing: CrossingError): FerryError {
  return isFerryErrorCode(crossing.code)
    ? new FerryError(crossing.code, crossing.message, crossing.details)
    : new FerryError('E_INTERNAL', crossing.message, { ...crossing.details, code: crossing.code });
}

/** Thrown when no handler is registered for a kind (a programming error, or a peer of another version). */
export function noHandlerError(instance: string, kind: string): FerryError {
  return new FerryError('E_INTERNAL', `Ferry instance ${instance} has no handler for "${kind}"`, {
    reason: 'no_handler',
    instance,
    kind,
  });
}

/** Runs `handler`, turning whatever it throws into the error the asker would see from another instance. */
export async function runHandler(
  handler: InstanceHandler | undefined,
  payload: unknown,
  context: { instance: string; kind: string },
  report?: (error: unknown) => void,
): Promise<unknown> {
  if (!handler) throw noHandlerError(context.instance, context.kind);
  try {
    return await handler(payload);
  } catch (error) {
    throw fromCrossingError(toCrossingError(error, context, report));
  }
}

/** Rejects after `timeoutMs` unless `work` settles first; the timer never outlives it. */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface MemoryInstanceBusOptions {
  /** @default 'local' */
  id?: string;
  /** @default DEFAULT_REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
  /** A handler failed with something other than a FerryError (it crosses as E_INTERNAL). */
  onHandlerError?: (kind: string, error: unknown) => void;
}

/**
 * The embedded default's bus: one instance, which is always alive; a request to it runs its
 * handler directly, a broadcast is its own answer, and any other instance is gone.
 */
export function createMemoryInstanceBus(options: MemoryInstanceBusOptions = {}): InstanceBus {
  const id = options.id ?? 'local';
  const defaultTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const handlers = new Map<string, InstanceHandler>();
  const run = (kind: string, payload: unknown, timeoutMs: number) =>
    withTimeout(
      runHandler(handlers.get(kind), payload, { instance: id, kind }, (error) =>
        options.onHandlerError?.(kind, error),
      ),
      timeoutMs,
      () => new InstanceGoneError(id, kind, 'instance_timeout', timeoutMs),
    );
  return {
    id,
    handle(kind, handler) {
      if (handlers.has(kind)) throw new Error(`A handler for "${kind}" is already registered`);
      handlers.set(kind, handler);
    },
    async request<T>(instance: string, kind: string, payload: unknown, timeoutMs = defaultTimeout) {
      if (instance !== id) throw new InstanceGoneError(instance, kind, 'instance_gone');
      return (await run(kind, payload, timeoutMs)) as T;
    },
    async broadcast<T>(kind: string, payload: unknown, timeoutMs = defaultTimeout) {
      return [(await run(kind, payload, timeoutMs)) as T];
    },
    async isAlive(instance) {
      return instance === id;
    },
  };
}
