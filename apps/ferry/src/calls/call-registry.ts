// Calls run in the background: POST /api/calls answers with an id at once, the events stream over
// SSE and stay replayable by seq (a browser reload reconnects with Last-Event-ID), the outcome is
// fetchable once the call has settled. The registry runs the calls of this instance; what clients
// read back (records, event logs, the running limit, retention) lives in a CallStore
// (call-store.ts), in memory by default. Kept here, because they cannot leave the process: each
// running call's AbortController and promise, and its local listeners, called synchronously
// with each event (the chat's registry-host subscribes right after `start` and must miss none).
import {
  type CallEvent,
  type ElicitationAnswer,
  ElicitationAnswerSchema,
  errorEnvelope,
  IdSchema,
  type ToolCallResponse,
} from '@ferry/contract';
import { answerFromError, type ElicitationAnswerRequest, type ToolCallRequest } from '@ferry/host';
import { z } from 'zod';
import type { CallsConfig } from '../config/app-config.js';
import type { PathRedactor } from '../http/redact-paths.js';
import { type InstanceBus, InstanceGoneError } from '../shared/instance-bus.js';
import type { CallListener, CallSnapshot, CallStore } from './call-store.js';
import { createMemoryCallStore } from './memory-call-store.js';

export type { CallSnapshot } from './call-store.js';

/** A listener on a call this instance runs; `end` gets the (redacted) outcome when known. */
export interface LocalCallListener {
  event(event: CallEvent): void;
  end(response?: ToolCallResponse): void;
}

export interface StartCallInput {
  owner: string;
  username: string;
  sessionKey?: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  fileInputs?: Record<string, string | string[]>;
}

export interface CallRegistry {
  /**
   * Records the call and starts it on the next turn of the event loop, so a caller that
   * subscribes as soon as this resolves misses no event. Throws ApiError E_TOO_MANY_CALLS (429).
   */
  start(input: StartCallInput): Promise<CallSnapshot>;
  /** The owner's call, or undefined (another user's call is as unknown as a missing one). */
  get(owner: string, callId: string): Promise<CallSnapshot | undefined>;
  list(owner: string): Promise<CallSnapshot[]>;
  /** Asks a running call to stop; false when it had already settled. */
  cancel(call: CallSnapshot): Promise<boolean>;
  /**
   * Answers a question the call's server asked, on the instance running the call. False: no such
   * open question. Throws the host's FerryError when the answer does not fit the form.
   */
  answer(call: CallSnapshot, elicitationId: string, answer: ElicitationAnswer): Promise<boolean>;
  /** Kept events with seq > `after`, oldest first. */
  eventsAfter(callId: string, after: number): Promise<CallEvent[]>;
  /** Kept events with seq > `after`, then the live ones, then `end()` (CallStore.follow). */
  follow(callId: string, after: number, listener: CallListener): Promise<() => void>;
  /**
   * Every event of a call this instance runs, synchronously as it happens, then `end`. A call
   * that is not running here ends at once.
   */
  subscribe(callId: string, listener: LocalCallListener): () => void;
  /**
   * Cancels every call of `owner` running here and resolves, with their number, once they have
   * settled (user deletion: each instance stops its own).
   */
  cancelOwnerHere(owner: string): Promise<number>;
  /** Resolves (never rejects) once the call has settled, or at once when it is unknown. */
  settled(callId: string): Promise<void>;
  /** Forgets settled calls past their retention (the maintenance tick; the count cap holds always). */
  sweep(): Promise<void>;
  /**
   * Resolves true once no call runs here, false when `deadline` (epoch ms) comes first. Calls
   * started meanwhile (a chat turn's next tool round) are waited for too.
   */
  idle(deadline: number): Promise<boolean>;
  /** Cancels every call running here and waits (up to `graceMs`) for them to settle. */
  close(graceMs?: number): Promise<void>;
}

export interface CallRegistryOptions {
  callTool(request: ToolCallRequest, emit: (event: CallEvent) => void): Promise<ToolCallResponse>;
  /** The host's, for the questions of calls running here. @default none: every answer finds no question */
  answerElicitation?: (answer: ElicitationAnswerRequest) => Promise<boolean>;
  limits: CallsConfig;
  redact: PathRedactor;
  now?: () => number;
  onError?: (error: unknown, callId: string) => void;
  /** Every (redacted) event of every call run here, e.g. for the user's own event stream. */
  onEvent?: (call: CallSnapshot, event: CallEvent) => void;
  /** @default a memory store with `limits` */
  store?: CallStore;
  /** This instance's name in CallSnapshot.instance. @default LOCAL_INSTANCE */
  instance?: string;
  /**
   * The other instances (scale mode): a cancel of a call one of them runs is sent to it, and
   * theirs of calls running here arrive through it. @default none: every call is this instance's
   */
  bus?: InstanceBus;
  /**
   * Ends the calls of instances that are gone (scale mode's reaper, one round now). Run when a
   * cancel or an answer finds the call's instance gone, so the call ends at once instead of at
   * the next heartbeat. @default none
   */
  reapGone?: () => Promise<unknown>;
}

/** What one instance asks another to cancel (InstanceBus request kind), and its answer. */
const CANCEL_REQUEST = 'call.cancel';
const CancelRequest = z.object({ callId: z.string().min(1).max(200) });
const CancelAnswer = z.object({ cancelled: z.boolean() });
/** An answer to a question a call running on another instance asked, and that instance's verdict. */
const ANSWER_REQUEST = 'call.answer';
const AnswerRequest = z.object({
  callId: IdSchema,
  owner: z.string().min(1).max(200),
  elicitationId: IdSchema,
  answer: ElicitationAnswerSchema,
});
const AnswerAnswer = z.object({ answered: z.boolean() });

/** The instance name of an embedded Ferry (memory store): every call is its own. */
const LOCAL_INSTANCE = 'local';

interface Running {
  call: CallSnapshot;
  controller: AbortController;
  listeners: Set<LocalCallListener>;
  lastSeq: number;
  /** The store's writes for this call, in emit order (settle waits for them). */
  writes: Promise<unknown>;
  /** Set when callTool has answered: from then on a cancel has nothing to stop. */
  answered: boolean;
  /**
   * Set when the store refused a write (scale mode: another instance reaped the call while this
   * one was cut off from Redis): the call is aborted here and nothing more is written.
   */
  lost: boolean;
  /** Resolves (never rejects) once the store has the outcome and the listeners have ended. */
  settled: Promise<void>;
}

export function createCallRegistry(options: CallRegistryOptions): CallRegistry {
  const now = options.now ?? Date.now;
  const { limits, redact } = options;
  const store = options.store ?? createMemoryCallStore({ limits, now });
  const instance = options.instance ?? LOCAL_INSTANCE;
  const running = new Map<string, Running>();

  // A store write that fails (a shared store out of reach) must not stop the call or the writes
  // queued after it; the operator hears of it through onError.
  const write = (entry: Running, step: () => Promise<unknown>) => {
    entry.writes = entry.writes
      .then(step)
      .catch((error: unknown) => options.onError?.(error, entry.call.callId));
    return entry.writes;
  };

  const push = (entry: Running, event: CallEvent) => {
    const safe = redact(event);
    entry.lastSeq = Math.max(entry.lastSeq, safe.seq);
    for (const listener of entry.listeners) listener.event(safe);
    options.onEvent?.(entry.call, safe);
    void write(entry, async () => {
      if (!entry.lost && !(await store.append(entry.call.callId, instance, safe))) lose(entry);
    });
  };

  // The store no longer takes this instance's writes for the call: it was settled elsewhere (the
  // reaper of another instance took this one for dead). Running on would only waste the tool's work.
  const lose = (entry: Running) => {
    entry.lost = true;
    const reason = new Error(
      "This Ferry instance lost the call: another instance ended it after missing this one's heartbeat",
    );
    options.onError?.(reason, entry.call.callId);
    entry.controller.abort(reason);
  };

  const settle = async (entry: Running, response: ToolCallResponse) => {
    const safe = redact(response);
    await write(entry, async () => {
      if (!entry.lost && !(await store.settle(entry.call.callId, instance, safe, new Date(now())))) {
        lose(entry);
      }
    });
    running.delete(entry.call.callId);
    for (const listener of entry.listeners) listener.end(safe);
    entry.listeners.clear();
  };

  const run = (entry: Running, request: ToolCallRequest) =>
    options
      .callTool(request, (event) => push(entry, event))
      .then(
        (response) => {
          entry.answered = true;
          return settle(entry, response);
        },
        (error: unknown) => {
          entry.answered = true;
          const { callId } = entry.call;
          // callTool only rejects on programmer errors; the call still needs an end.
          options.onError?.(error, callId);
          push(entry, {
            type: 'failed',
            code: 'E_INTERNAL',
            message: 'Internal error',
            retryable: true,
            callId,
            seq: entry.lastSeq + 1,
            at: new Date(now()).toISOString(),
          });
          return settle(entry, internalFailure(callId));
        },
      );

  const cancelHere = (callId: string): boolean => {
    const entry = running.get(callId);
    if (!entry || entry.answered) return false;
    entry.controller.abort(new Error('cancelled by the user'));
    return true;
  };
  const answerHere = async (
    call: { callId: string; owner: string },
    elicitationId: string,
    answer: ElicitationAnswer,
  ) =>
    options.answerElicitation
      ? options.answerElicitation({ callId: call.callId, owner: call.owner, elicitationId, ...answer })
      : false;
  // The route checked the owner before it asked; the id alone names the call here.
  options.bus?.handle(CANCEL_REQUEST, async (payload) => ({
    cancelled: cancelHere(CancelRequest.parse(payload).callId),
  }));
  // The owner travels with the answer: the host checks it against the question's user again.
  options.bus?.handle(ANSWER_REQUEST, async (payload) => {
    const { callId, owner, elicitationId, answer } = AnswerRequest.parse(payload);
    return { answered: await answerHere({ callId, owner }, elicitationId, answer) };
  });

  /**
   * Asks the instance running `call`. When that instance is gone, its calls are reaped now (they
   * end as failed) and `whenGone` is the answer: there is nothing left to cancel or answer.
   */
  const askOwner = async <T>(
    call: CallSnapshot,
    kind: string,
    payload: unknown,
    whenGone: T,
  ): Promise<unknown> => {
    if (!options.bus) return whenGone;
    try {
      return await options.bus.request(call.instance, kind, payload);
    } catch (error) {
      if (!(error instanceof InstanceGoneError) || error.reason !== 'instance_gone') throw error;
      await options.reapGone?.();
      return whenGone;
    }
  };

  const registry: CallRegistry = {
    async start(input) {
      const call = await store.create(
        {
          owner: input.owner,
          username: input.username,
          server: input.server,
          tool: input.tool,
          startedAt: new Date(now()),
          instance,
        },
        limits.maxRunningPerUser,
      );
      const { callId } = call;
      const controller = new AbortController();
      let markSettled: () => void = () => {};
      const entry: Running = {
        call,
        controller,
        listeners: new Set(),
        lastSeq: 0,
        writes: Promise.resolve(),
        answered: false,
        lost: false,
        settled: new Promise<void>((resolve) => {
          markSettled = resolve;
        }),
      };
      running.set(callId, entry);
      const request: ToolCallRequest = {
        callId,
        user: { owner: input.owner, username: input.username },
        server: input.server,
        tool: input.tool,
        arguments: input.arguments,
        signal: controller.signal,
        ...(input.sessionKey === undefined ? {} : { sessionId: input.sessionKey }),
        ...(input.fileInputs === undefined ? {} : { fileInputs: input.fileInputs }),
      };
      // Deferred a tick so the caller can subscribe before the first event.
      setImmediate(() => {
        void run(entry, request).finally(markSettled);
      });
      return { ...call };
    },
    get: (owner, callId) => store.get(owner, callId),
    list: (owner) => store.list(owner),
    async cancel(call) {
      if (call.instance === instance) return cancelHere(call.callId);
      // Only the instance running a call can abort it: ask it.
      const answer = await askOwner(call, CANCEL_REQUEST, { callId: call.callId }, { cancelled: false });
      return CancelAnswer.parse(answer).cancelled;
    },
    async answer(call, elicitationId, answer) {
      if (call.instance === instance) return answerHere(call, elicitationId, answer);
      // The question waits in the memory of the instance running the call: the answer goes there.
      const payload = { callId: call.callId, owner: call.owner, elicitationId, answer };
      return AnswerAnswer.parse(await askOwner(call, ANSWER_REQUEST, payload, { answered: false })).answered;
    },
    eventsAfter: (callId, after) => store.eventsAfter(callId, after),
    follow: (callId, after, listener) => store.follow(callId, after, listener),
    subscribe(callId, listener) {
      const entry = running.get(callId);
      if (!entry) {
        listener.end();
        return () => {};
      }
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },
    async cancelOwnerHere(owner) {
      const entries = [...running.values()].filter((entry) => entry.call.owner === owner);
      for (const entry of entries)
        if (!entry.answered) entry.controller.abort(new Error('the user was deleted'));
      await Promise.all(entries.map((entry) => entry.settled));
      return entries.length;
    },
    async settled(callId) {
      const entry = running.get(callId);
      if (entry) return entry.settled;
      // Run elsewhere (or already settled): the store's follow ends when it settles.
      await new Promise<void>((resolve) => {
        void store
          .follow(callId, Number.MAX_SAFE_INTEGER, { event: () => {}, end: resolve })
          .catch(() => resolve());
      });
    },
    sweep: () => store.sweep(),
    async idle(deadline) {
      while (running.size > 0) {
        const left = deadline - now();
        if (left <= 0) return false;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all([...running.values()].map((entry) => entry.settled)),
          new Promise((resolve) => {
            timer = setTimeout(resolve, left);
          }),
        ]);
        clearTimeout(timer);
      }
      return true;
    },
    async close(graceMs = 5000) {
      const entries = [...running.values()];
      for (const entry of entries) entry.controller.abort(new Error('Ferry is shutting down'));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(entries.map((entry) => entry.settled)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
  return registry;
}

function internalFailure(callId: string): ToolCallResponse {
  // The same answer shape as every other failed call (the host's answerFromError).
  return { callId, status: 'failed', ...answerFromError(errorEnvelope('E_INTERNAL', {}, 'Internal error')) };
}
