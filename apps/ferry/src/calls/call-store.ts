// Where kept calls live: their records, event logs, the running-call limit and retention. The
// registry (call-registry.ts) runs calls and keeps what cannot leave the process (the abort
// controller, the running promise, synchronous listeners); everything a client can read back goes
// through this seam, so an instance that does not run a call can still list it, replay its events
// and follow it. memory-call-store.ts is the embedded one; the contract is
// test/calls/call-store-suite.ts.
import type { CallEvent, ToolCallResponse } from '@ferry/contract';
import type { CallsConfig } from '../config/app-config.js';
import { ApiError } from '../http/api-error.js';

export type CallStatus = 'running' | ToolCallResponse['status'];

export interface CallListener {
  event(event: CallEvent): void;
  /** The call has settled: its outcome is available. */
  end(): void;
}

/** A kept call as read at one moment (a copy: it never changes under the reader). */
export interface CallSnapshot {
  callId: string;
  owner: string;
  username: string;
  server: string;
  tool: string;
  startedAt: Date;
  status: CallStatus;
  finishedAt?: Date;
  /** The highest seq appended so far (0 before the first event). */
  lastSeq: number;
  /** The redacted outcome, once settled. */
  response?: ToolCallResponse;
  /** The instance running it: only that one can abort it or append to it. */
  instance: string;
}

export interface NewCall {
  owner: string;
  username: string;
  server: string;
  tool: string;
  startedAt: Date;
  instance: string;
}

/** The caps a store applies itself (the running limit comes with each `create`). */
export type CallStoreLimits = Pick<CallsConfig, 'maxEventsPerCall' | 'maxKeptCalls' | 'keepFinishedMinutes'>;

export interface CallStore {
  /**
   * Checks the owner's running calls against `maxRunning` and records the new call as running,
   * as one step (two concurrent creates never both take the last slot). Throws ApiError
   * E_TOO_MANY_CALLS (429, see tooManyCalls).
   */
  create(call: NewCall, maxRunning: number): Promise<CallSnapshot>;
  /**
   * Appends one event, already redacted; a full log drops its oldest progress event first, else
   * its oldest event. false: the call is unknown, settled or not `instance`'s.
   */
  append(callId: string, instance: string, event: CallEvent): Promise<boolean>;
  /** Records the (redacted) outcome once; false when the call is unknown, settled or not `instance`'s. */
  settle(callId: string, instance: string, response: ToolCallResponse, at: Date): Promise<boolean>;
  /** The owner's call, or undefined (another user's call is as unknown as a missing one). */
  get(owner: string, callId: string): Promise<CallSnapshot | undefined>;
  /** The owner's kept calls, oldest start first. */
  list(owner: string): Promise<CallSnapshot[]>;
  /** Kept events with seq > `after`, oldest first. */
  eventsAfter(callId: string, after: number): Promise<CallEvent[]>;
  /**
   * Kept events with seq > `after`, then the live ones, then `end()` once the call has settled
   * (at once for a settled or unknown call): every seq once, in order, none missed between the
   * replay and the live part. The returned function stops following.
   */
  follow(callId: string, after: number, listener: CallListener): Promise<() => void>;
  /** Forgets settled calls past their retention (keepFinishedMinutes, maxKeptCalls). */
  sweep(): Promise<void>;
}

/** The one refusal every store throws when the owner has `maxRunning` calls running. */
export function tooManyCalls(maxRunning: number, running: number): ApiError {
  return new ApiError('E_TOO_MANY_CALLS', `At most ${maxRunning} calls may run at once`, { running });
}

/**
 * The replay-then-live seam of `follow`, for every store: live events that arrive while the replay
 * is being delivered (a listener may even cause them) wait in order and are delivered after it,
 * and any seq already sent is dropped, so the listener sees each seq once, ascending, and `end()`
 * once, last.
 */
export interface CallFollower {
  /** A live event. */
  event(event: CallEvent): void;
  /** The call has settled. */
  end(): void;
  /** Delivers the kept events (seq > after), then what arrived meanwhile, then a pending end. */
  replay(events: readonly CallEvent[]): void;
}

export function createCallFollower(after: number, listener: CallListener): CallFollower {
  let sent = after;
  let replaying = true;
  let endPending = false;
  let ended = false;
  const queue: CallEvent[] = [];
  const deliver = (event: CallEvent) => {
    if (ended || event.seq <= sent) return;
    sent = event.seq;
    listener.event(event);
  };
  const finish = () => {
    if (ended) return;
    ended = true;
    listener.end();
  };
  return {
    event(event) {
      if (replaying) queue.push(event);
      else deliver(event);
    },
    end() {
      if (replaying) endPending = true;
      else finish();
    },
    replay(events) {
      for (const event of events) deliver(event);
      for (let next = queue.shift(); next; next = queue.shift()) deliver(next);
      replaying = false;
      if (endPending) finish();
    },
  };
}
