// Everything that changes a user's view, on one stream (GET /api/events): every event of the
// user's calls, whoever started them (the tool runner, the chat, the CLI), and changes to My Files
// (uploads, renames, deletes, files stored by tools), so every open tab updates without reloading.
// The seam: `publish` and `follow`. Following is one call (replay, then live) so that a shared
// implementation (redis-user-events.ts) can close the gap between the two itself. This file holds
// the embedded one: in memory, per instance; a short backlog per user lets a reconnecting tab
// catch up by event id.
import type { UserEvent, UserEventBody } from '@ferry/contract';

export type { UserEvent, UserEventBody } from '@ferry/contract';

export type UserEventListener = (event: UserEvent) => void;

export interface UserEvents {
  /**
   * Gives the event the owner's next id and hands it to every follower. Resolves once it is kept
   * (a follow from then on replays it); never rejects: a shared implementation reports a failure
   * to its onError, so callers may fire and forget.
   */
  publish(owner: string, body: UserEventBody): Promise<void>;
  /**
   * `after` undefined: live only, from now. Else the kept events with id > `after` first, then the
   * live ones: each id once, ascending. Resolves once following, with the function that stops it.
   */
  follow(owner: string, after: number | undefined, listener: UserEventListener): Promise<() => void>;
  /** Drops what is kept of the owner's events (user deletion); their followers hear nothing more. */
  forget(owner: string): Promise<void>;
}

export function createUserEvents(options: { backlog?: number; now?: () => number } = {}): UserEvents {
  const backlog = options.backlog ?? 200;
  const now = options.now ?? Date.now;
  const users = new Map<string, { nextId: number; recent: UserEvent[]; listeners: Set<UserEventListener> }>();
  const userOf = (owner: string) => {
    let user = users.get(owner);
    if (!user) {
      user = { nextId: 1, recent: [], listeners: new Set() };
      users.set(owner, user);
    }
    return user;
  };
  return {
    async publish(owner, body) {
      const user = userOf(owner);
      const event = { ...body, id: user.nextId++, at: new Date(now()).toISOString() } as UserEvent;
      user.recent.push(event);
      if (user.recent.length > backlog) user.recent.shift();
      for (const listener of user.listeners) {
        try {
          listener(event);
        } catch {
          // One broken stream must not stop the others.
        }
      }
    },
    async follow(owner, after, listener) {
      const user = userOf(owner);
      // Replay and subscribe in one synchronous step: nothing can be published in between.
      if (after !== undefined) {
        for (const event of user.recent) if (event.id > after) listener(event);
      }
      user.listeners.add(listener);
      return () => {
        user.listeners.delete(listener);
      };
    },
    async forget(owner) {
      users.delete(owner);
    },
  };
}
