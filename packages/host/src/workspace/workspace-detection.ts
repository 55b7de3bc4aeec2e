// Which detection a call gets: the workspace's change tracker when it can be trusted, a walk
// before and after otherwise. One tracker per user, made on the user's first call (its first walk
// is that call's "before"), rebuilt after a failure or when the workspace directory was replaced,
// closed after `idleMs` without calls. A watch that could not be set up (ENOSPC: too many
// watches) or a workspace past the walk's bounds means walking for that user during
// `retryAfterMs` instead of failing again each call.
import { join } from 'node:path';
import { type ChangeTracker, createChangeTracker } from './change-tracker.js';
import { type DetectionWindow, walkWindow } from './detection-window.js';
import { createWatchHub, type WatchDirectory, type WatchHub } from './watch-hub.js';
import type { TrackerFailure } from './watched-tree.js';
import { type SnapshotOptions, snapshotWorkspace } from './workspace-snapshot.js';

export interface DetectionOptions {
  /** 'watch': a change tracker per workspace, walking when it fails; 'walk': always walk. @default 'watch' */
  method?: 'watch' | 'walk';
  /** Watches one directory; tests inject failures. @default fs.watch */
  watch?: WatchDirectory;
  /** How long a sync marker's event may take before the call walks instead. @default 5000 */
  syncTimeoutMs?: number;
  /** A tracker with no call for this long stops watching; the next call walks once. @default 600000 */
  idleMs?: number;
  /** After a watch could not be set up or the workspace was too large, the user's calls walk for this long. @default 300000 */
  retryAfterMs?: number;
  /** Events read in one burst that count as a possible queue overflow. @default half of max_queued_events */
  overflowBurst?: number;
}

export interface DetectionTarget {
  username: string;
  hostDir: string;
  /** directoryIdentity() of hostDir now, to notice a workspace removed and made again. */
  rootId: string;
}

export interface WorkspaceDetection {
  start(target: DetectionTarget): Promise<DetectionWindow>;
  /** Closes every tracker and the sync directory; later calls walk. */
  close(): Promise<void>;
}

/** The directory (under the workspaces root) holding sync markers; usernames cannot start with '.'. */
const SYNC_DIR_NAME = '.ferry-sync';

/** Failures that a new tracker would meet again at once: no watches left, a workspace too large. */
const isLasting = (failure: TrackerFailure) => failure.kind === 'watch' || failure.kind === 'limits';

interface Entry {
  tracker: ChangeTracker;
  idle?: NodeJS.Timeout;
}

export function createWorkspaceDetection(init: {
  /** The real path of the workspaces root (created on demand). */
  root: () => Promise<string>;
  snapshot?: SnapshotOptions;
  options?: DetectionOptions;
}): WorkspaceDetection {
  const options = init.options ?? {};
  const maxEntries = init.snapshot?.maxEntries ?? 10_000;
  const maxDepth = init.snapshot?.maxDepth ?? 16;
  const idleMs = options.idleMs ?? 600_000;
  const retryAfterMs = options.retryAfterMs ?? 300_000;
  const trackers = new Map<string, Entry>();
  const walkUntil = new Map<string, number>();
  let hub: Promise<WatchHub> | undefined;
  let closed = false;

  const drop = (username: string, entry: Entry) => {
    if (trackers.get(username) === entry) trackers.delete(username);
    clearTimeout(entry.idle);
    entry.tracker.close();
  };

  const idleLater = (username: string, entry: Entry) => {
    if (entry.tracker.openWindows > 0 || trackers.get(username) !== entry) return;
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      if (entry.tracker.openWindows === 0) drop(username, entry);
    }, idleMs);
    entry.idle.unref();
  };

  const trackerFor = async ({ username, hostDir, rootId }: DetectionTarget): Promise<Entry | undefined> => {
    hub ??= init.root().then((root) =>
      createWatchHub({
        dir: join(root, SYNC_DIR_NAME),
        ...(options.watch ? { watch: options.watch } : {}),
        ...(options.syncTimeoutMs === undefined ? {} : { syncTimeoutMs: options.syncTimeoutMs }),
        ...(options.overflowBurst === undefined ? {} : { overflowBurst: options.overflowBurst }),
      }),
    );
    const shared = await hub;
    // Synchronous from here on, so two first calls of one user share one tracker.
    if (closed) return undefined;
    const current = trackers.get(username);
    if (current && !current.tracker.failure && current.tracker.rootId === rootId) return current;
    if (current) drop(username, current);
    const tracker = createChangeTracker({
      hostDir,
      rootId,
      hub: shared,
      maxEntries,
      maxDepth,
      onFailure: (failure) => {
        if (isLasting(failure)) walkUntil.set(username, Date.now() + retryAfterMs);
      },
    });
    const entry: Entry = { tracker };
    trackers.set(username, entry);
    return entry;
  };

  return {
    async start(target) {
      const walk = () => snapshotWorkspace(target.hostDir, init.snapshot);
      const byWalk = async () => walkWindow(await walk(), walk);
      if (closed || options.method === 'walk' || (walkUntil.get(target.username) ?? 0) > Date.now()) {
        return byWalk();
      }
      let entry: Entry | undefined;
      let window: DetectionWindow | undefined;
      // A tracker found failed when opening (its workspace replaced meanwhile) is rebuilt once;
      // when that fails too (the first walk could not watch), this call compares two walks.
      for (let attempt = 0; attempt < 2 && !window; attempt++) {
        entry = await trackerFor(target).catch(() => undefined);
        if (!entry) break;
        clearTimeout(entry.idle);
        try {
          window = await entry.tracker.open();
        } catch {
          const failure = entry.tracker.failure;
          if (!failure) break;
          drop(target.username, entry);
          if (isLasting(failure)) break;
        }
      }
      if (!entry || !window) return byWalk();
      const opened = window;
      const used = entry;
      return {
        finish: () => opened.finish().finally(() => idleLater(target.username, used)),
        dispose: () => {
          opened.dispose();
          idleLater(target.username, used);
        },
      };
    },
    async close() {
      closed = true;
      for (const [username, entry] of trackers) drop(username, entry);
      const opened = hub;
      hub = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}
