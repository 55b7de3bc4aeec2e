// A persistent per-workspace change tracker: the workspace watched with fs.watch (inotify, one
// watch per directory: watched-tree.ts), so a call's detection costs two sync markers and an
// lstat per changed path instead of two walks of the workspace.
//
// - Started by one walk (watch each directory, then read it), which also records every file.
// - A call window runs from a start marker to an end marker (watch-hub.ts). At finish, after the
//   end marker's event and the lstats and walks the events before it set off, each path that
//   changed in between is reported when it is a regular file that differs from its state at the
//   start (change-records.ts). A file made and removed during the call is not there at the end.
// - Anything that makes events untrustworthy fails the tracker: a watch that cannot be set up
//   (ENOSPC), a marker that never arrives, a possible queue overflow, the workspace directory
//   removed or replaced, more entries than the walk's bounds. Open windows then finish by walking
//   and comparing with the records; the caller (workspace-detection.ts) rebuilds or walks.
//
// Not seen, as by any inotify user: writes through a shared mmap, and changes made through
// another mount of the same files (a sandbox bind mount is the same file system: seen).
import { lstat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type Baseline, ChangeRecords, type ChangeWindow, changedSince, entryOf } from './change-records.js';
import type { DetectedChanges, DetectionWindow } from './detection-window.js';
import type { WatchHub } from './watch-hub.js';
import { createWatchedTree, directoryIdentity, TrackerFailure } from './watched-tree.js';
import { snapshotWorkspace } from './workspace-snapshot.js';

export interface ChangeTrackerOptions {
  hostDir: string;
  /** directoryIdentity() of hostDir when the tracker was made: another directory needs another tracker. */
  rootId: string;
  hub: WatchHub;
  /** The snapshot walk's bounds: past them the tracker gives up. */
  maxEntries: number;
  maxDepth: number;
  /** Told once, when the tracker stops. */
  onFailure?(failure: TrackerFailure): void;
}

export interface ChangeTracker {
  readonly rootId: string;
  /** Why the tracker stopped; undefined while it is healthy. */
  readonly failure: TrackerFailure | undefined;
  readonly openWindows: number;
  /** Opens a window once the first walk is done; rejects when the tracker failed or the start marker could not be placed. */
  open(): Promise<DetectionWindow>;
  /** Closes every watch; open windows finish by walking. */
  close(): void;
}

export function createChangeTracker(options: ChangeTrackerOptions): ChangeTracker {
  const { hostDir, hub } = options;
  const records = new ChangeRecords();
  let failure: TrackerFailure | undefined;
  let rootEvents = 0;
  let rootChecked = 0;

  const fail = (reason: TrackerFailure) => {
    if (failure) return;
    failure = reason;
    unsubscribe();
    tree.close();
    options.onFailure?.(reason);
  };
  const tree = createWatchedTree({
    hostDir,
    hub,
    records,
    maxEntries: options.maxEntries,
    maxDepth: options.maxDepth,
    fail,
    onRootEvent: () => rootEvents++,
  });
  const unsubscribe = hub.onOverflow(() =>
    fail(new TrackerFailure('a burst of events may have overflowed the inotify queue', 'lost-events')),
  );

  /** After a 'rename' event under the root's own name: is hostDir still the directory we watch? */
  const checkRoot = async () => {
    if (rootChecked === rootEvents || failure) return;
    const seen = rootEvents;
    const stats = await lstat(hostDir, { bigint: true }).catch(() => undefined);
    let ours = stats?.isDirectory() === true && directoryIdentity(stats) === options.rootId;
    // Without birth times the identity can repeat; then only a child of that name explains the event.
    if (ours && stats?.birthtimeNs === 0n)
      ours = await lstat(join(hostDir, basename(hostDir))).then(
        () => true,
        () => false,
      );
    if (!ours) fail(new TrackerFailure(`${hostDir} was removed or replaced`, 'replaced'));
    else rootChecked = seen;
  };

  const ready = (async () => {
    const stats = await lstat(hostDir, { bigint: true }).catch(() => undefined);
    if (!stats?.isDirectory() || directoryIdentity(stats) !== options.rootId) {
      fail(new TrackerFailure(`${hostDir} was replaced`, 'replaced'));
    } else {
      await tree.start();
    }
    if (failure) throw failure;
  })();
  ready.catch(() => undefined);

  /** After a failure: a walk compared with what each path was when the window started. */
  const walkFinish = async (window: ChangeWindow): Promise<DetectedChanges> => {
    const after = await snapshotWorkspace(hostDir, options);
    const paths: string[] = [];
    for (const [path, entry] of after.files) {
      if (changedSince(records.beforeFor(window, path), entry)) paths.push(path);
    }
    return { paths: paths.sort(), truncated: after.truncated, method: 'walk' };
  };

  const finish = async (window: ChangeWindow): Promise<DetectedChanges> => {
    if (failure) return walkFinish(window);
    try {
      await hub.mark((seq) => (window.end = seq)).delivered;
    } catch (error) {
      fail(new TrackerFailure('the end marker was not delivered', 'lost-events', { cause: error }));
    }
    await Promise.all(tree.pending());
    await checkRoot();
    if (failure) return walkFinish(window);
    // Only dirty paths need an lstat: a file classified after its last event is known already
    // (read now, before a later event can make it dirty). Paths changed outside any window are
    // looked at too, so later windows know their state.
    const now = new Map<string, Baseline>(
      records.candidates(window).map((path) => [path, records.current(path)]),
    );
    await Promise.all(
      records.dirtyPaths().map(async (path) => {
        const stats = await tree.look(path);
        if (now.has(path)) now.set(path, stats?.isFile() ? entryOf(stats) : 'absent');
      }),
    );
    const paths: string[] = [];
    for (const [path, state] of now) {
      if (typeof state === 'object' && changedSince(window.before.get(path) ?? 'unknown', state))
        paths.push(path);
    }
    return { paths: paths.sort(), truncated: false, method: 'events' };
  };

  return {
    rootId: options.rootId,
    get failure() {
      return failure;
    },
    get openWindows() {
      return records.openWindows;
    },
    async open() {
      await ready;
      await checkRoot();
      if (failure) throw failure;
      const window = records.openWindow(hub.current());
      const mark = hub.mark((seq) => (window.start = seq));
      try {
        await mark.touched;
      } catch (error) {
        records.closeWindow(window);
        throw error;
      }
      mark.delivered.catch((error) =>
        fail(new TrackerFailure('the start marker was not delivered', 'lost-events', { cause: error })),
      );
      let finished: Promise<DetectedChanges> | undefined;
      return {
        finish: () => {
          finished ??= finish(window).finally(() => records.closeWindow(window));
          return finished;
        },
        dispose: () => {
          if (!finished) records.closeWindow(window);
        },
      };
    },
    close: () => fail(new TrackerFailure('closed', 'closed')),
  };
}
