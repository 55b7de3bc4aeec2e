// A conversation's turn as others see it: which instance runs it, its events by seq (the ids of
// the POST stream that carries it) for anyone who follows it (a reloaded tab, another device,
// through any instance), and its end. One turn per conversation at a time, across instances.
// The running turn itself (its AbortController, the agent loop) stays in the memory of the
// instance that runs it (chat-turns.ts). This file holds the embedded log, in memory; scale
// mode's is redis-turn-log.ts.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '@ferry/contract';

export interface TurnRecord {
  turnId: string;
  /** The instance running it. */
  instance: string;
  running: boolean;
}

export interface TurnListener {
  event(seq: number, event: AgentEvent): void;
  /**
   * The turn is over: `lost` when it ended without its own last event (the instance running it
   * stopped, or the log forgot it).
   */
  end(how: 'finished' | 'lost'): void;
}

export interface TurnLog {
  /** Claims the conversation for a new turn run by `instance`; undefined while one runs. */
  begin(owner: string, conversationId: string, instance: string): Promise<string | undefined>;
  /** false when the turn is no longer this instance's to write (it ended, or was taken for lost). */
  append(
    owner: string,
    conversationId: string,
    turnId: string,
    seq: number,
    event: AgentEvent,
  ): Promise<boolean>;
  /** Ends the turn; its events stay readable for a while. */
  end(owner: string, conversationId: string, turnId: string): Promise<void>;
  /** The conversation's current or last turn, if the log still knows it. */
  get(owner: string, conversationId: string): Promise<TurnRecord | undefined>;
  /** Of `conversationIds`, those with a turn running. */
  runningAmong(owner: string, conversationIds: string[]): Promise<Set<string>>;
  /**
   * Events with seq > `after`, then the live ones, then `end`. undefined when the log knows no turn
   * of the conversation. Counts as a follower until stopped.
   */
  follow(
    owner: string,
    conversationId: string,
    after: number,
    listener: TurnListener,
  ): Promise<(() => void) | undefined>;
  /** How many follow the conversation's turn right now (on any instance). */
  followers(owner: string, conversationId: string): Promise<number>;
  close(): Promise<void>;
}

export interface MemoryTurnLogOptions {
  /** Events kept per turn (the oldest go first). @default DEFAULT_TURN_EVENTS */
  maxEvents?: number;
  /** How long an ended turn stays followable. @default DEFAULT_ENDED_TURN_KEEP_MS */
  keepEndedMs?: number;
}

export const DEFAULT_TURN_EVENTS = 5000;
/** Long enough for a reloaded tab to read how its turn ended. */
export const DEFAULT_ENDED_TURN_KEEP_MS = 10 * 60_000;

interface KeptTurn extends TurnRecord {
  events: { seq: number; event: AgentEvent }[];
  listeners: Set<TurnListener>;
}

export function createMemoryTurnLog(options: MemoryTurnLogOptions = {}): TurnLog {
  const maxEvents = options.maxEvents ?? DEFAULT_TURN_EVENTS;
  const keepEndedMs = options.keepEndedMs ?? DEFAULT_ENDED_TURN_KEEP_MS;
  // The last turn of each conversation: a new turn replaces it.
  const turns = new Map<string, KeptTurn>();
  const key = (owner: string, conversationId: string) => `${owner}\u0000${conversationId}`;
  const current = (owner: string, conversationId: string, turnId: string) => {
    const turn = turns.get(key(owner, conversationId));
    return turn?.turnId === turnId && turn.running ? turn : undefined;
  };
  return {
    async begin(owner, conversationId, instance) {
      if (turns.get(key(owner, conversationId))?.running) return undefined;
      const turnId = randomUUID();
      turns.set(key(owner, conversationId), {
        turnId,
        instance,
        running: true,
        events: [],
        listeners: new Set(),
      });
      return turnId;
    },
    async append(owner, conversationId, turnId, seq, event) {
      const turn = current(owner, conversationId, turnId);
      if (!turn) return false;
      turn.events.push({ seq, event });
      if (turn.events.length > maxEvents) turn.events.shift();
      for (const listener of turn.listeners) listener.event(seq, event);
      return true;
    },
    async end(owner, conversationId, turnId) {
      const turn = current(owner, conversationId, turnId);
      if (!turn) return;
      turn.running = false;
      for (const listener of turn.listeners) listener.end('finished');
      turn.listeners.clear();
      const k = key(owner, conversationId);
      setTimeout(() => {
        if (turns.get(k) === turn) turns.delete(k);
      }, keepEndedMs).unref();
    },
    async get(owner, conversationId) {
      const turn = turns.get(key(owner, conversationId));
      return turn && { turnId: turn.turnId, instance: turn.instance, running: turn.running };
    },
    async runningAmong(owner, conversationIds) {
      return new Set(conversationIds.filter((id) => turns.get(key(owner, id))?.running));
    },
    async follow(owner, conversationId, after, listener) {
      const turn = turns.get(key(owner, conversationId));
      if (!turn) return undefined;
      // Replay and subscribe in one synchronous step: nothing can be appended in between.
      for (const { seq, event } of turn.events) if (seq > after) listener.event(seq, event);
      if (!turn.running) {
        listener.end('finished');
        return () => {};
      }
      turn.listeners.add(listener);
      return () => {
        turn.listeners.delete(listener);
      };
    },
    async followers(owner, conversationId) {
      return turns.get(key(owner, conversationId))?.listeners.size ?? 0;
    },
    async close() {
      for (const turn of turns.values()) turn.listeners.clear();
    },
  };
}
