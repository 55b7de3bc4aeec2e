// Sessions: one per browser tab or CLI run, named by the client in X-Ferry-Session (or made here
// and returned in that header). They drive `persist_files_across_sessions=false`: files stored
// in a session go when it ends (explicitly, or after `idleMinutes` unused).
//
// FileStore.endSession deletes a session's files across owners, so the id the FileStore sees is
// scoped by owner: another user who learns (or guesses) a session id cannot end someone else's.
import { randomUUID } from 'node:crypto';
import { FerryError } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { Identity } from './authenticate.js';
import { localSessionActivity, type SessionActivity } from './session-activity.js';

export const SESSION_HEADER = 'x-ferry-session';
const SESSION_ID = /^[A-Za-z0-9_-]{8,128}$/;

export interface SessionRef {
  /** What the client sends in X-Ferry-Session. */
  id: string;
  /** What the FileStore stores (owner-scoped). */
  key: string;
  expiresAt: Date;
}

export interface Sessions {
  /** The client's session (adopted if unknown), or a new one when `id` is undefined. */
  open(user: Identity, id: string | undefined): SessionRef;
  /** Keeps a session alive; a no-op for ids this instance has not seen. */
  touch(user: Identity, id: string): void;
  /** Ends it now; returns how many session-only files were deleted. */
  end(user: Identity, id: string): Promise<number>;
  /** Users with a session live on this instance (their workspaces stay as they are). */
  liveUsers(): Set<string>;
  /** Forgets every session of the user without touching files (user deletion deletes them all). */
  forget(user: Identity): void;
  /**
   * Ends every session idle past its expiry: those this instance saw, and those it never saw
   * (made before a restart, or by another instance) whose newest session file is older than the
   * idle time; a session still in use here is never ended that way.
   */
  expire(): Promise<number>;
  readonly size: number;
}

export interface SessionsOptions {
  files: Pick<FileStore, 'endSession' | 'idleSessions'>;
  idleMinutes: number;
  /** @default Date.now */
  now?: () => number;
  /** A session this instance had not seen opened (not on `touch`, not for a known one). */
  onOpened?: (user: Identity) => void;
  /**
   * What other instances saw of the sessions (scale mode): a session is ended as idle only when
   * no instance used it within the idle time. @default localSessionActivity (this instance only)
   */
  activity?: SessionActivity;
}

function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

export function checkSessionId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isSessionId(value)) {
    throw new FerryError('E_INVALID_INPUT', `${SESSION_HEADER} must be 8-128 of A-Z a-z 0-9 _ -`, {
      field: SESSION_HEADER,
    });
  }
  return value;
}

export function createSessions(options: SessionsOptions): Sessions {
  const now = options.now ?? Date.now;
  const idleMs = options.idleMinutes * 60_000;
  const activity = options.activity ?? localSessionActivity;
  // How stale the shared last use may be: a small part of the idle time, at most a minute.
  const shareEveryMs = Math.min(60_000, idleMs / 4);
  /** Session key → when it was last used here, when that was last shared, and whose it is. */
  const lastSeen = new Map<string, { at: number; sharedAt: number; username: string }>();
  const use = (key: string, username: string) => {
    const at = now();
    const entry = lastSeen.get(key) ?? { at, sharedAt: Number.NEGATIVE_INFINITY, username };
    entry.at = at;
    lastSeen.set(key, entry);
    if (at - entry.sharedAt >= shareEveryMs) {
      entry.sharedAt = at;
      activity.record(key, at);
    }
  };
  const keyOf = (owner: string, id: string) => `${owner}:${id}`;
  const ref = (owner: string, id: string): SessionRef => ({
    id,
    key: keyOf(owner, id),
    expiresAt: new Date((lastSeen.get(keyOf(owner, id))?.at ?? now()) + idleMs),
  });

  return {
    open(user, id) {
      const sessionId = id ?? randomUUID();
      const key = keyOf(user.owner, sessionId);
      const known = lastSeen.has(key);
      use(key, user.username);
      if (!known) options.onOpened?.(user);
      return ref(user.owner, sessionId);
    },
    touch(user, id) {
      const key = keyOf(user.owner, id);
      if (lastSeen.has(key)) use(key, user.username);
    },
    async end(user, id) {
      const key = keyOf(user.owner, id);
      lastSeen.delete(key);
      await activity.forget(key);
      return options.files.endSession(key);
    },
    liveUsers() {
      return new Set([...lastSeen.values()].map((seen) => seen.username));
    },
    forget(user) {
      const prefix = keyOf(user.owner, '');
      for (const key of [...lastSeen.keys()]) if (key.startsWith(prefix)) lastSeen.delete(key);
    },
    async expire() {
      const cutoff = now() - idleMs;
      // Idle here: this instance lets go of it, and ends it unless another instance used it since.
      const idleHere = [...lastSeen].filter(([, seen]) => seen.at <= cutoff).map(([key]) => key);
      for (const key of idleHere) lastSeen.delete(key);
      let deleted = 0;
      for (const key of idleHere) {
        if (await activity.claimIdle(key, cutoff)) deleted += await options.files.endSession(key);
      }
      for (const key of await options.files.idleSessions(new Date(cutoff))) {
        if (!lastSeen.has(key) && (await activity.claimIdle(key, cutoff))) {
          deleted += await options.files.endSession(key);
        }
      }
      await activity.prune(cutoff);
      return deleted;
    },
    get size() {
      return lastSeen.size;
    },
  };
}
