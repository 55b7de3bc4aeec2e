// Everything that changes a user's view, on one stream (GET /api/events): every event of the
// user's calls, whoever started them (the tool runner, the chat, the CLI), and changes to My Files
// (uploads, renames, deletes, files stored by tools), so every open tab updates without reloading.
// In memory, per instance; a short backlog per user lets a reconnecting tab catch up by event id.
import type { UserEvent, UserEventBody } from '@ferry/contract';

export type { UserEvent, UserEventBody } from '@ferry/contract';

export interface UserEvents {
  publish(owner: string, body: UserEventBody): void;
  /** Events of `owner` with id > `after` still in the backlog, oldest first. */
  since(owner: string, after: number): UserEvent[];
  subscribe(owner: string, listener: (event: UserEvent) => void): () => void;
}

export function createUserEvents(options: { backlog?: number; now?: () => number } = {}): UserEvents {
  const backlog = options.backlog ?? 200;
  const now = options.now ?? Date.now;
  const users = new Map<
    string,
    { nextId: number; recent: UserEvent[]; listeners: Set<(e: UserEvent) => void> }
  >();
  const userOf = (owner: string) => {
    let user = users.get(owner);
    if (!user) {
      user = { nextId: 1, recent: [], listeners: new Set() };
      users.set(owner, user);
    }
    return user;
  };
  return {
    publish(owner, body) {
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
    since(owner, after) {
      return (users.get(owner)?.recent ?? []).filter((event) => event.id > after);
    },
    subscribe(owner, listener) {
      const user = userOf(owner);
      user.listeners.add(listener);
      return () => user.listeners.delete(listener);
    },
  };
}
