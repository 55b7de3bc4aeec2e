// The turns running on this instance, one per conversation at most across every instance (a
// second one would interleave the history), so a cancel or a file-request answer from another
// request, through any instance, reaches them. Each turn's events go to a TurnLog (turn-log.ts:
// in memory, or Redis in scale mode) that any instance follows; the turn itself (its
// AbortController, the agent loop, its open file requests) stays here. When the client that
// started it goes away, the turn runs on for a grace period and stops then unless somebody
// follows it (a reloaded tab, another device).
import type { FileRequestAnswer } from '@ferry/contract';
import { z } from 'zod';
import { type InstanceBus, InstanceGoneError } from '../shared/instance-bus.js';
import type { FileRequestAnswerResult, FileRequests } from './file-requests.js';
import { createMemoryTurnLog, type TurnListener, type TurnLog } from './turn-log.js';

export interface RunningTurn {
  turnId: string;
  owner: string;
  conversationId: string;
  controller: AbortController;
  done: Promise<void>;
}

export interface TurnSlot {
  turn: RunningTurn;
  /** One event of the turn, with the seq its stream gave it; written to the log in this order. */
  emit: TurnListener['event'];
  /** The client that started the turn went away: stop it after the grace unless it is followed. */
  detached(): void;
  /** The turn is over: the log says so once every event is written. */
  end(): Promise<void>;
}

export interface ChatTurns {
  /** undefined when the conversation already has a running turn (here or on another instance). */
  begin(owner: string, conversationId: string): Promise<TurnSlot | undefined>;
  runningAmong(owner: string, conversationIds: string[]): Promise<Set<string>>;
  /** Asks the turn to stop, wherever it runs; resolves when it has. false when none was running. */
  cancel(owner: string, conversationId: string): Promise<boolean>;
  /** Opens a file request of a turn running here (file-requests.ts). */
  openFileRequest: FileRequests['open'];
  /** Answers a file request of the conversation's turn, wherever it runs (file-requests.ts). */
  answerFileRequest(
    owner: string,
    conversationId: string,
    requestId: string,
    answer: FileRequestAnswer,
  ): Promise<FileRequestAnswerResult>;
  /** The conversation's current or last turn's events after `after`, live, then its end. */
  follow: TurnLog['follow'];
  /** Stops every turn of one owner running here (user deletion); resolves when they have stopped. */
  cancelOwner(owner: string): Promise<number>;
  /** Stops every turn running here (server shutdown), then closes the log. */
  close(): Promise<void>;
}

export interface ChatTurnsOptions {
  /** The open file requests of the turns running here. */
  fileRequests: FileRequests;
  /** @default a memory log */
  log?: TurnLog;
  /** @default 'local' */
  instance?: string;
  /** Scale mode: cancels and answers for turns of other instances go to them. */
  bus?: InstanceBus;
  /** @default DEFAULT_DETACH_GRACE_MS */
  detachGraceMs?: number;
  onError?: (error: unknown) => void;
}

/** Long enough for a reloaded page to come back and follow its turn. */
const DEFAULT_DETACH_GRACE_MS = 15_000;

const CANCEL_TURN = 'turn.cancel';
const ANSWER_FILE_REQUEST = 'turn.file-request';
const TurnPayload = z.object({
  owner: z.string().min(1).max(200),
  conversationId: z.string().min(1).max(200),
});
const AnswerPayload = TurnPayload.extend({
  requestId: z.string().min(1).max(200),
  answer: z.unknown(),
});
const CancelAnswer = z.object({ cancelled: z.boolean() });
/** JSON has no undefined: "no such request" crosses as null. */
const FileRequestReply = z
  .union([
    z.object({ ok: z.literal(true) }),
    z.object({ ok: z.literal(false), error: z.record(z.string(), z.unknown()) }),
    z.null(),
  ])
  .transform((value) => (value ?? undefined) as FileRequestAnswerResult);

export function createChatTurns(options: ChatTurnsOptions): ChatTurns {
  const log = options.log ?? createMemoryTurnLog();
  const instance = options.instance ?? 'local';
  const graceMs = options.detachGraceMs ?? DEFAULT_DETACH_GRACE_MS;
  const onError = options.onError ?? (() => {});
  const running = new Map<string, RunningTurn>();
  const key = (owner: string, id: string) => `${owner}\u0000${id}`;
  const stop = async (turns: RunningTurn[]) => {
    for (const turn of turns) turn.controller.abort();
    await Promise.all(turns.map((turn) => turn.done));
    return turns.length;
  };
  const cancelHere = async (owner: string, conversationId: string) => {
    const turn = running.get(key(owner, conversationId));
    if (!turn) return false;
    await stop([turn]);
    return true;
  };
  const answerHere = (owner: string, conversationId: string, requestId: string, answer: FileRequestAnswer) =>
    options.fileRequests.answer(owner, conversationId, requestId, answer);

  options.bus?.handle(CANCEL_TURN, async (payload) => {
    const { owner, conversationId } = TurnPayload.parse(payload);
    return { cancelled: await cancelHere(owner, conversationId) };
  });
  options.bus?.handle(ANSWER_FILE_REQUEST, async (payload) => {
    const { owner, conversationId, requestId, answer } = AnswerPayload.parse(payload);
    // The route checked the answer's shape; the instance that holds the request checks its files.
    return (await answerHere(owner, conversationId, requestId, answer as FileRequestAnswer)) ?? null;
  });

  /** The instance running the conversation's turn, when it is another one and alive. */
  const remoteOwner = async (owner: string, conversationId: string) => {
    if (!options.bus || running.has(key(owner, conversationId))) return undefined;
    const record = await log.get(owner, conversationId);
    return record?.running && record.instance !== instance ? record.instance : undefined;
  };
  /** Asks `target`; a gone instance has nothing to stop or answer (its turn's lease runs out). */
  const ask = async (target: string, kind: string, payload: unknown, whenGone: unknown) => {
    try {
      return await (options.bus as InstanceBus).request(target, kind, payload);
    } catch (error) {
      if (error instanceof InstanceGoneError && error.reason === 'instance_gone') return whenGone;
      throw error;
    }
  };

  return {
    async begin(owner, conversationId) {
      const k = key(owner, conversationId);
      if (running.has(k)) return undefined;
      const turnId = await log.begin(owner, conversationId, instance);
      // Checked again: another request of this instance may have begun one meanwhile.
      if (!turnId || running.has(k)) {
        if (turnId) await log.end(owner, conversationId, turnId);
        return undefined;
      }
      let markDone = () => {};
      const done = new Promise<void>((resolve) => {
        markDone = resolve;
      });
      const turn: RunningTurn = { turnId, owner, conversationId, controller: new AbortController(), done };
      running.set(k, turn);
      let writes: Promise<unknown> = Promise.resolve();
      let detachTimer: NodeJS.Timeout | undefined;
      return {
        turn,
        emit(seq, event) {
          writes = writes
            .then(async () => {
              if (!(await log.append(owner, conversationId, turnId, seq, event))) {
                // Taken for lost (this instance was cut off past the lease): stop wasting work.
                turn.controller.abort();
              }
            })
            .catch(onError);
        },
        detached() {
          if (turn.controller.signal.aborted || detachTimer) return;
          detachTimer = setTimeout(() => {
            log
              .followers(owner, conversationId)
              .then((count) => {
                if (count === 0) turn.controller.abort();
              })
              .catch((error: unknown) => {
                onError(error);
                turn.controller.abort();
              });
          }, graceMs);
          detachTimer.unref();
        },
        async end() {
          clearTimeout(detachTimer);
          if (running.get(k) === turn) running.delete(k);
          await writes;
          await log.end(owner, conversationId, turnId).catch(onError);
          markDone();
        },
      };
    },
    async runningAmong(owner, conversationIds) {
      return log.runningAmong(owner, conversationIds);
    },
    async cancel(owner, conversationId) {
      if (await cancelHere(owner, conversationId)) return true;
      const target = await remoteOwner(owner, conversationId);
      if (!target) return false;
      const answer = await ask(target, CANCEL_TURN, { owner, conversationId }, { cancelled: false });
      return CancelAnswer.parse(answer).cancelled;
    },
    openFileRequest: (owner, conversationId, request, signal) =>
      options.fileRequests.open(owner, conversationId, request, signal),
    async answerFileRequest(owner, conversationId, requestId, answer) {
      const target = await remoteOwner(owner, conversationId);
      if (!target) return answerHere(owner, conversationId, requestId, answer);
      const payload = { owner, conversationId, requestId, answer };
      return FileRequestReply.parse(await ask(target, ANSWER_FILE_REQUEST, payload, null));
    },
    follow: (owner, conversationId, after, listener) => log.follow(owner, conversationId, after, listener),
    cancelOwner: (owner) => stop([...running.values()].filter((turn) => turn.owner === owner)),
    async close() {
      await stop([...running.values()]);
      await log.close();
    },
  };
}
