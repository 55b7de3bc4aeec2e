// The embedded CallStore: every kept call in one map in this process, bounded per call
// (maxEventsPerCall) and in number (maxKeptCalls, keepFinishedMinutes). Each method does its work
// synchronously before its promise resolves, so a check and the write it guards (the running
// limit) can never interleave with another call's.
import { randomUUID } from 'node:crypto';
import type { CallEvent } from '@ferry/contract';
import {
  type CallFollower,
  type CallSnapshot,
  type CallStore,
  type CallStoreLimits,
  createCallFollower,
  tooManyCalls,
} from './call-store.js';

export interface MemoryCallStoreOptions {
  limits: CallStoreLimits;
  /** @default Date.now */
  now?: () => number;
}

interface Kept {
  call: CallSnapshot;
  /** The newest events, at most `maxEventsPerCall` (progress events are dropped first). */
  events: CallEvent[];
  followers: Set<CallFollower>;
}

export function createMemoryCallStore(options: MemoryCallStoreOptions): CallStore {
  const now = options.now ?? Date.now;
  const { limits } = options;
  const calls = new Map<string, Kept>();
  // Settled calls by finish time, oldest first: retention forgets from the front, so neither the
  // cap nor the sweep sorts or scans the running calls (a settle is appended, or nearly).
  const finished: { callId: string; at: number }[] = [];
  const forgetOldest = (count: number) => {
    for (const { callId } of finished.splice(0, count)) calls.delete(callId);
  };
  const ours = (callId: string, instance: string) => {
    const kept = calls.get(callId);
    return kept && kept.call.status === 'running' && kept.call.instance === instance ? kept : undefined;
  };

  return {
    async create(call, maxRunning) {
      const running = [...calls.values()].filter(
        (c) => c.call.owner === call.owner && c.call.status === 'running',
      ).length;
      if (running >= maxRunning) throw tooManyCalls(maxRunning, running);
      const snapshot: CallSnapshot = { ...call, callId: randomUUID(), status: 'running', lastSeq: 0 };
      calls.set(snapshot.callId, { call: snapshot, events: [], followers: new Set() });
      return { ...snapshot };
    },
    async append(callId, instance, event) {
      const kept = ours(callId, instance);
      if (!kept) return false;
      const { events } = kept;
      if (events.length >= limits.maxEventsPerCall) {
        const progress = events.findIndex((e) => e.type === 'progress');
        events.splice(progress >= 0 ? progress : 0, 1);
      }
      events.push(event);
      kept.call.lastSeq = Math.max(kept.call.lastSeq, event.seq);
      for (const follower of kept.followers) follower.event(event);
      return true;
    },
    async settle(callId, instance, response, at) {
      const kept = ours(callId, instance);
      if (!kept) return false;
      kept.call.response = response;
      kept.call.status = response.status;
      kept.call.finishedAt = at;
      for (const follower of kept.followers) follower.end();
      kept.followers.clear();
      let index = finished.length;
      while (index > 0 && (finished[index - 1]?.at ?? 0) > at.getTime()) index -= 1;
      finished.splice(index, 0, { callId, at: at.getTime() });
      // The cap holds at every settle, not only at the maintenance tick.
      forgetOldest(finished.length - limits.maxKeptCalls);
      return true;
    },
    async get(owner, callId) {
      const kept = calls.get(callId);
      return kept && kept.call.owner === owner ? { ...kept.call } : undefined;
    },
    async list(owner) {
      return [...calls.values()].filter((c) => c.call.owner === owner).map((c) => ({ ...c.call }));
    },
    async eventsAfter(callId, after) {
      return (calls.get(callId)?.events ?? []).filter((event) => event.seq > after);
    },
    async follow(callId, after, listener) {
      const kept = calls.get(callId);
      const follower = createCallFollower(after, listener);
      const backlog = (kept?.events ?? []).filter((event) => event.seq > after);
      if (kept?.call.status !== 'running') {
        follower.end();
        follower.replay(backlog);
        return () => {};
      }
      kept.followers.add(follower);
      follower.replay(backlog);
      return () => kept.followers.delete(follower);
    },
    async sweep() {
      const cutoff = now() - limits.keepFinishedMinutes * 60_000;
      const expired = finished.findIndex((entry) => entry.at >= cutoff);
      forgetOldest(expired === -1 ? finished.length : expired);
    },
  };
}
