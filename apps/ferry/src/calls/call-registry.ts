// Calls run in the background: POST /api/calls answers with an id at once, the events stream over
// SSE and stay replayable by seq (a browser reload reconnects with Last-Event-ID), the outcome is
// fetchable once the call has settled. All of it in memory, bounded per call and in number; one
// instance only (the Redis fan-out of DESIGN "Files and storage" is not built yet).
import { randomUUID } from 'node:crypto';
import { type CallEvent, errorEnvelope, type ToolCallResponse } from '@ferry/contract';
import { answerFromError, type ToolCallRequest } from '@ferry/host';
import type { CallsConfig } from '../config/app-config.js';
import { ApiError } from '../http/api-error.js';
import type { PathRedactor } from '../http/redact-paths.js';

export type CallStatus = 'running' | ToolCallResponse['status'];

export interface CallListener {
  event(event: CallEvent): void;
  /** The call has settled: its outcome is available. */
  end(): void;
}

export interface CallRecord {
  readonly callId: string;
  readonly owner: string;
  readonly username: string;
  readonly server: string;
  readonly tool: string;
  readonly startedAt: Date;
  status: CallStatus;
  finishedAt?: Date;
  /** The newest events, at most `maxEventsPerCall` (progress events are dropped first). */
  readonly events: CallEvent[];
  lastSeq: number;
  response?: ToolCallResponse;
  /** Settles (never rejects) when the call has finished, failed or been cancelled. */
  readonly settled: Promise<void>;
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
  /** Starts the call in the background; throws ApiError E_TOO_MANY_CALLS (429). */
  start(input: StartCallInput): CallRecord;
  /** The owner's call, or undefined (another user's call is as unknown as a missing one). */
  get(owner: string, callId: string): CallRecord | undefined;
  list(owner: string): CallRecord[];
  /** Asks a running call to stop; false when it had already settled. */
  cancel(record: CallRecord): boolean;
  /** Events with seq > `after`, oldest first. */
  eventsAfter(record: CallRecord, after: number): CallEvent[];
  subscribe(record: CallRecord, listener: CallListener): () => void;
  /** Forgets settled calls past their retention. */
  sweep(): void;
  /** Cancels every running call and waits (up to `graceMs`) for them to settle. */
  close(graceMs?: number): Promise<void>;
}

export interface CallRegistryOptions {
  callTool(request: ToolCallRequest, emit: (event: CallEvent) => void): Promise<ToolCallResponse>;
  limits: CallsConfig;
  redact: PathRedactor;
  now?: () => number;
  onError?: (error: unknown, callId: string) => void;
  /** Every (redacted) event of every call, e.g. for the user's own event stream. */
  onEvent?: (record: CallRecord, event: CallEvent) => void;
}

interface Internal {
  record: CallRecord;
  controller: AbortController;
  listeners: Set<CallListener>;
}

export function createCallRegistry(options: CallRegistryOptions): CallRegistry {
  const now = options.now ?? Date.now;
  const { limits, redact } = options;
  const calls = new Map<string, Internal>();
  const internal = (record: CallRecord) => calls.get(record.callId);

  const push = (entry: Internal, event: CallEvent) => {
    const safe = redact(event);
    const { events } = entry.record;
    if (events.length >= limits.maxEventsPerCall) {
      const progress = events.findIndex((e) => e.type === 'progress');
      events.splice(progress >= 0 ? progress : 0, 1);
    }
    events.push(safe);
    entry.record.lastSeq = Math.max(entry.record.lastSeq, safe.seq);
    for (const listener of entry.listeners) listener.event(safe);
    options.onEvent?.(entry.record, safe);
  };

  const settle = (entry: Internal, response: ToolCallResponse) => {
    entry.record.response = redact(response);
    entry.record.status = response.status;
    entry.record.finishedAt = new Date(now());
    for (const listener of entry.listeners) listener.end();
    entry.listeners.clear();
  };

  const registry: CallRegistry = {
    start(input) {
      const running = [...calls.values()].filter(
        (c) => c.record.owner === input.owner && c.record.status === 'running',
      ).length;
      if (running >= limits.maxRunningPerUser) {
        throw new ApiError('E_TOO_MANY_CALLS', `At most ${limits.maxRunningPerUser} calls may run at once`, {
          running,
        });
      }
      registry.sweep();
      const callId = randomUUID();
      const controller = new AbortController();
      let markSettled: () => void = () => {};
      const record: CallRecord = {
        callId,
        owner: input.owner,
        username: input.username,
        server: input.server,
        tool: input.tool,
        startedAt: new Date(now()),
        status: 'running',
        events: [],
        lastSeq: 0,
        settled: new Promise<void>((resolve) => {
          markSettled = resolve;
        }),
      };
      const entry: Internal = { record, controller, listeners: new Set() };
      calls.set(callId, entry);
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
        options
          .callTool(request, (event) => push(entry, event))
          .then(
            (response) => settle(entry, response),
            (error: unknown) => {
              // callTool only rejects on programmer errors; the call still needs an end.
              options.onError?.(error, callId);
              push(entry, {
                type: 'failed',
                code: 'E_INTERNAL',
                message: 'Internal error',
                retryable: true,
                callId,
                seq: record.lastSeq + 1,
                at: new Date(now()).toISOString(),
              });
              settle(entry, internalFailure(callId));
            },
          )
          .finally(markSettled);
      });
      return record;
    },
    get(owner, callId) {
      const entry = calls.get(callId);
      return entry && entry.record.owner === owner ? entry.record : undefined;
    },
    list(owner) {
      return [...calls.values()].map((c) => c.record).filter((r) => r.owner === owner);
    },
    cancel(record) {
      const entry = internal(record);
      if (!entry || record.status !== 'running') return false;
      entry.controller.abort(new Error('cancelled by the user'));
      return true;
    },
    eventsAfter(record, after) {
      return record.events.filter((event) => event.seq > after);
    },
    subscribe(record, listener) {
      const entry = internal(record);
      if (!entry || record.status !== 'running') {
        listener.end();
        return () => {};
      }
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },
    sweep() {
      const cutoff = now() - limits.keepFinishedMinutes * 60_000;
      const settled = [...calls.values()]
        .filter((c) => c.record.finishedAt !== undefined)
        .sort((a, b) => (a.record.finishedAt?.getTime() ?? 0) - (b.record.finishedAt?.getTime() ?? 0));
      const excess = Math.max(0, settled.length - limits.maxKeptCalls);
      settled.forEach((c, index) => {
        if (index < excess || (c.record.finishedAt?.getTime() ?? 0) < cutoff) calls.delete(c.record.callId);
      });
    },
    async close(graceMs = 5000) {
      const running = [...calls.values()].filter((c) => c.record.status === 'running');
      for (const entry of running) entry.controller.abort(new Error('Ferry is shutting down'));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running.map((c) => c.record.settled)),
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
