// When a user's workspace (/tmp/{username}/ as their tools see it) is emptied, and when it goes.
// Everything worth keeping is in My Files already: inputs are copies of it,
// outputs are stored when each call ends. So once a user has no live session here and no call
// running here, the workspace is emptied: at once when their last session is ended explicitly
// (their local servers go on running, each until its own idleSeconds pass: a CLI run ends its
// session, and the next `ferry call` must not pay a cold start), and on the maintenance sweep
// when it expired (or was never opened: API scripts) and no call used the workspace for the idle
// time; then their servers are stopped too. Deleting a user stops them and removes the workspace.
//
// A call or tool listing runs inside `during(username)`: the workspace is not cleared meanwhile,
// and one that starts while a clear is under way waits for it to finish first.
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { isValidUsername } from '@ferry/contract';
import type { Host } from '@ferry/host';
import { clearSessionFiles, isClearedWorkspace, removeUserWorkspace } from '@ferry/sandbox';

export interface WorkspaceJanitorOptions {
  /** Host directory of the per-user workspaces (the host's `workspacesRoot`). */
  workspacesRoot: string;
  /** Stops every connection of the user (the host pool's `closeUser`). */
  closeUser(username: string): Promise<number>;
  /** A workspace no call used for this long may be cleared by `sweep`. */
  idleMs: number;
  /** @default Date.now */
  now?: () => number;
  /** After a workspace was emptied (for logs). */
  onCleared?(username: string, removedEntries: number, why: 'session-ended' | 'idle'): void;
}

export interface WorkspaceJanitor {
  /** Runs `work` with the user's workspace in use (see the header). */
  during<T>(username: string, work: () => Promise<T>): Promise<T>;
  /**
   * The user's last session here ended: empties the workspace (servers keep running until idle),
   * unless a call of theirs is running (then the sweep does it later). true when it was emptied.
   */
  sessionEnded(username: string): Promise<boolean>;
  /**
   * Stops the servers of, and empties, every workspace idle for `idleMs` whose user is not in
   * `keep` (users with a live session) and has no call running. Returns the users whose workspace
   * was emptied.
   */
  sweep(keep: ReadonlySet<string>): Promise<string[]>;
  /**
   * User deletion: stops their servers and removes the workspace directory; a call still running
   * is waited for (cancel it first). false when there was no workspace.
   */
  remove(username: string): Promise<boolean>;
}

export function createWorkspaceJanitor(options: WorkspaceJanitorOptions): WorkspaceJanitor {
  const now = options.now ?? Date.now;
  /** Calls (and listings) running per user. */
  const inUse = new Map<string, number>();
  /** When a call of the user last ended or started; unknown (e.g. after a restart) counts as idle. */
  const lastUsed = new Map<string, number>();
  /** A clear or removal under way per user; `during` waits for it. */
  const busy = new Map<string, Promise<unknown>>();
  /** Resolves `during`'s waiting for the user's calls to end (removal waits for them). */
  const idleWaiters = new Map<string, (() => void)[]>();

  /** The workspace's real host path; undefined while no workspace root exists yet. */
  const hostDirOf = async (username: string) => {
    const root = await realpath(options.workspacesRoot).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return root === undefined ? undefined : join(root, username);
  };

  /** Runs `step` as the user's one maintenance operation; undefined when one is under way. */
  const exclusive = <T>(username: string, step: () => Promise<T>): Promise<T> | undefined => {
    if (busy.has(username)) return undefined;
    const running = step().finally(() => busy.delete(username));
    busy.set(
      username,
      running.catch(() => undefined),
    );
    return running;
  };

  const clear = async (username: string, why: 'session-ended' | 'idle'): Promise<boolean> => {
    if ((inUse.get(username) ?? 0) > 0) return false;
    const done = exclusive(username, async () => {
      if (why === 'idle') await options.closeUser(username);
      const hostDir = await hostDirOf(username);
      if (hostDir === undefined) return true;
      const { removed } = await clearSessionFiles({ username, hostDir });
      if (removed > 0) options.onCleared?.(username, removed, why);
      return true;
    });
    return (await done) ?? false;
  };

  const waitUntilIdle = (username: string): Promise<void> => {
    if ((inUse.get(username) ?? 0) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = idleWaiters.get(username) ?? [];
      waiters.push(resolve);
      idleWaiters.set(username, waiters);
    });
  };

  return {
    async during(username, work) {
      inUse.set(username, (inUse.get(username) ?? 0) + 1);
      lastUsed.set(username, now());
      try {
        await busy.get(username);
        return await work();
      } finally {
        const left = (inUse.get(username) ?? 1) - 1;
        lastUsed.set(username, now());
        if (left > 0) inUse.set(username, left);
        else {
          inUse.delete(username);
          for (const resolve of idleWaiters.get(username) ?? []) resolve();
          idleWaiters.delete(username);
        }
      }
    },

    sessionEnded: (username) => clear(username, 'session-ended'),

    async sweep(keep) {
      const names = await readdir(options.workspacesRoot).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw error;
      });
      const cleared: string[] = [];
      const cutoff = now() - options.idleMs;
      for (const username of names) {
        // Not a user's workspace (the host's own `.ferry-sync`, say): never touched here.
        if (!isValidUsername(username) || keep.has(username)) continue;
        if ((lastUsed.get(username) ?? Number.NEGATIVE_INFINITY) > cutoff) continue;
        // Emptied already (by a session's end): its servers, if any still run, stop on their own idle clock.
        if (await isClearedWorkspace(join(options.workspacesRoot, username))) continue;
        if (await clear(username, 'idle')) cleared.push(username);
      }
      return cleared;
    },

    async remove(username) {
      // Several removals of one user (two admins at once) share one run.
      for (;;) {
        await waitUntilIdle(username);
        // A call may have started between the last one ending and this line.
        if ((inUse.get(username) ?? 0) > 0) continue;
        const pending = busy.get(username);
        if (pending) {
          await pending;
          continue;
        }
        const done = exclusive(username, async () => {
          await options.closeUser(username);
          lastUsed.delete(username);
          return removeUserWorkspace(username, { workspacesRoot: options.workspacesRoot });
        });
        if (done) return done;
      }
    },
  };
}

/** The host as the API and the model loop use it: every call and listing marks the workspace in use. */
export function guardedHost<H extends Pick<Host, 'callTool' | 'listTools' | 'startSessionServers'>>(
  host: H,
  janitor: WorkspaceJanitor,
): H {
  return {
    ...host,
    callTool: (request, emit) => janitor.during(request.user.username, () => host.callTool(request, emit)),
    listTools: (server, username) => janitor.during(username, () => host.listTools(server, username)),
    startSessionServers: (username) => janitor.during(username, () => host.startSessionServers(username)),
  };
}

/** For an app whose host has no local workspaces (a remote-only host, a test double). */
export const NO_WORKSPACES: WorkspaceJanitor = {
  during: (_username, work) => work(),
  sessionEnded: async () => false,
  sweep: async () => [],
  remove: async () => false,
};
