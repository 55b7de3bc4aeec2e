// Step 3: the call, watched as v2.1 §11.3 says.
//   - notices at noticeSeconds (15/20/25 s) with the spec's exact texts;
//   - timeoutSeconds (30 s) with neither a response nor progress: abort the call (the connection
//     sends notifications/cancelled), kill a local server's process, E_TIMEOUT with last_progress;
//   - every progress notification restarts that clock (notices start over);
//   - hardCapSeconds bounds the whole call, progress or not;
//   - the user's signal cancels;
//   - while the server waits for the user's answer to an elicitation, the idle clock stands still
//     (a person is reading and typing) and starts over once answered; the hard cap still runs.
// Times come from a Clock, so tests use a manual one and never sleep.
import {
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  TIMEOUT_MESSAGE,
  TIMEOUT_NOTICES,
  TIMEOUT_SECONDS,
  timeoutError,
} from '@ferry/contract';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type {
  ElicitationRequest,
  ElicitationResult,
  ProgressUpdate,
  ToolConnection,
} from '../connections/connection.js';
import { type Clock, systemClock, type TimerHandle } from './clock.js';

export interface WatchdogTimeouts {
  /** Seconds without response or progress before each notice. @default [15, 20, 25] */
  noticeSeconds: number[];
  /** Seconds without response or progress before the call is cancelled. @default 30 */
  timeoutSeconds: number;
  /** Seconds the whole call may take, progress or not. @default 600 */
  hardCapSeconds: number;
}

export const DEFAULT_TIMEOUTS: Readonly<WatchdogTimeouts> = Object.freeze({
  noticeSeconds: TIMEOUT_NOTICES.map((notice) => notice.afterSeconds),
  timeoutSeconds: TIMEOUT_SECONDS,
  hardCapSeconds: 600,
});

export interface WatchdogNotice {
  kind: 'slow' | 'timeout';
  /** Seconds since the call started or since its last progress. */
  afterSeconds: number;
  message: string;
}

export interface WatchdogProgress extends ProgressUpdate {
  /** 0–100, when the tool gave a total. */
  percent?: number;
}

export interface WatchdogInput {
  connection: ToolConnection;
  tool: string;
  arguments: Record<string, unknown>;
  timeouts: WatchdogTimeouts;
  clock?: Clock;
  /** The user's cancel. */
  signal?: AbortSignal;
  onNotice?: (notice: WatchdogNotice) => void;
  onProgress?: (progress: WatchdogProgress) => void;
  /** The server's questions to the user; absent: the connection answers them `cancel`. */
  onElicitation?: (request: ElicitationRequest) => Promise<ElicitationResult>;
}

export type WatchdogOutcome =
  | { kind: 'result'; result: CallToolResult; lastProgress?: string }
  | {
      kind: 'timeout';
      limit: 'idle' | 'hard_cap';
      seconds: number;
      lastProgress?: string;
      error: ErrorEnvelope;
    }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'failed'; error: ErrorEnvelope; cause: unknown };

export function callWithWatchdog(input: WatchdogInput): Promise<WatchdogOutcome> {
  const { connection, timeouts } = input;
  const clock = input.clock ?? systemClock;
  const controller = new AbortController();
  const notices = timeouts.noticeSeconds
    .filter((seconds) => seconds < timeouts.timeoutSeconds)
    .sort((a, b) => a - b)
    .map((afterSeconds, i) => ({
      afterSeconds,
      // The spec's texts in order; a longer custom schedule repeats the last one.
      message: (TIMEOUT_NOTICES[i] ?? TIMEOUT_NOTICES[TIMEOUT_NOTICES.length - 1])?.message ?? '',
    }));

  return new Promise<WatchdogOutcome>((resolve) => {
    let decided = false;
    let idle: TimerHandle | undefined;
    let lastProgress: string | undefined;
    /** Open elicitations: the idle clock is stopped while any is. */
    let asking = 0;

    const clearIdle = () => {
      if (idle !== undefined) clock.clearTimeout(idle);
      idle = undefined;
    };
    // The first outcome wins: a response that arrives after the timeout is ignored.
    const decide = (outcome: WatchdogOutcome, after?: () => Promise<void>) => {
      if (decided) return;
      decided = true;
      clearIdle();
      clock.clearTimeout(hardCap);
      input.signal?.removeEventListener('abort', onCancel);
      if (outcome.kind !== 'result') controller.abort(new Error(`[ferry/host] call ${outcome.kind}`));
      if (after) void after().then(() => resolve(outcome));
      else resolve(outcome);
    };
    const timeOut = (limit: 'idle' | 'hard_cap') => {
      if (decided) return;
      const seconds = limit === 'idle' ? timeouts.timeoutSeconds : timeouts.hardCapSeconds;
      input.onNotice?.({ kind: 'timeout', afterSeconds: seconds, message: TIMEOUT_MESSAGE });
      const error =
        limit === 'idle'
          ? timeoutError({ timeoutSeconds: seconds, lastProgress })
          : errorEnvelope('E_TIMEOUT', {
              timeout_seconds: seconds,
              last_progress: lastProgress ?? null,
              limit,
            });
      const outcome: WatchdogOutcome = { kind: 'timeout', limit, seconds, error };
      if (lastProgress !== undefined) outcome.lastProgress = lastProgress;
      // v2.1 §11.3 "Tool process is killed to prevent resource leaks"; the pool starts a fresh one.
      const kill = async () => {
        if (connection.kind === 'local')
          await connection.kill(`timed out after ${seconds}s`).catch(() => undefined);
      };
      decide(outcome, kill);
    };
    // One timer at a time on the idle clock: the next notice, then the timeout. Every call arms
    // it and every progress re-arms it, so one timer instead of one per notice. Each is due at its
    // time since the clock (re)started, read from the Clock: a late timer delays none after it.
    const armIdle = () => {
      clearIdle();
      const since = clock.now();
      const next = (k: number) => {
        const notice = notices[k];
        const dueMs = (notice === undefined ? timeouts.timeoutSeconds : notice.afterSeconds) * 1000;
        idle = clock.setTimeout(
          () => {
            idle = undefined;
            if (decided) return;
            if (notice === undefined) return timeOut('idle');
            // Armed first: a notice hook that throws must not stop the clock.
            next(k + 1);
            input.onNotice?.({ kind: 'slow', ...notice });
          },
          Math.max(0, since + dueMs - clock.now()),
        );
      };
      next(0);
    };
    const onCancel = () => decide({ kind: 'cancelled', reason: describeReason(input.signal?.reason) });
    const onProgress = (update: ProgressUpdate) => {
      if (decided) return;
      const progress: WatchdogProgress = { ...update };
      if (update.total !== undefined && update.total > 0) {
        progress.percent = Math.min(100, Math.max(0, (update.progress / update.total) * 100));
      }
      lastProgress =
        update.message ??
        (update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`);
      input.onProgress?.(progress);
      if (asking === 0) armIdle();
    };
    const ask = input.onElicitation;
    const onElicitation =
      ask &&
      (async (request: ElicitationRequest): Promise<ElicitationResult> => {
        asking += 1;
        clearIdle();
        try {
          return await ask(request);
        } finally {
          asking -= 1;
          if (asking === 0 && !decided) armIdle();
        }
      });

    const hardCap = clock.setTimeout(() => timeOut('hard_cap'), timeouts.hardCapSeconds * 1000);
    if (input.signal?.aborted) return onCancel();
    input.signal?.addEventListener('abort', onCancel, { once: true });
    armIdle();
    // Through a then(), so a connection that throws synchronously still ends in `decide`.
    Promise.resolve()
      .then(() =>
        connection.callTool(
          { name: input.tool, arguments: input.arguments },
          { signal: controller.signal, onProgress, ...(onElicitation && { onElicitation }) },
        ),
      )
      .then(
        (result) => {
          const outcome: WatchdogOutcome = { kind: 'result', result };
          if (lastProgress !== undefined) outcome.lastProgress = lastProgress;
          decide(outcome);
        },
        (cause: unknown) => {
          // A FerryError (the sandbox stopped the server over its quota) keeps its own code.
          const message = cause instanceof Error ? cause.message : String(cause);
          const error =
            cause instanceof FerryError ? cause.toEnvelope() : errorEnvelope('E_TOOL_ERROR', {}, message);
          decide({ kind: 'failed', cause, error });
        },
      );
  });
}

function describeReason(reason: unknown): string {
  // A bare abort() carries a generic AbortError; say who cancelled instead.
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return typeof reason === 'string' && reason !== '' ? reason : 'cancelled by the user';
}
