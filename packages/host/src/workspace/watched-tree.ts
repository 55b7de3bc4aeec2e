// The watching half of a change tracker: one fs.watch per directory of the workspace, events
// numbered by the hub and noted in the records, and lstats that keep the records current.
//
// - A 'rename' event (create, delete, move) is classified by lstat, batched per loop turn.
// - A directory named by a 'rename' event is (re)watched, then walked: files made in it before
//   its watch existed are found by the walk and count as changes. Always re-watched, never
//   matched by inode: ext4 hands a removed directory's inode number to the next one at once.
// - A directory gone or replaced by a file is unwatched with all below it; its records go (open
//   windows keep their state at their start).
import type { BigIntStats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { INPUT_DIR_NAME } from '@ferry/contract';
import { type ChangeRecords, entryOf } from './change-records.js';
import type { DirectoryWatch, WatchEventKind, WatchHub } from './watch-hub.js';
import { readWorkspaceDir } from './workspace-snapshot.js';

export type TrackerFailureKind = 'watch' | 'lost-events' | 'replaced' | 'limits' | 'closed';

export class TrackerFailure extends Error {
  constructor(
    message: string,
    readonly kind: TrackerFailureKind,
    options?: { cause?: unknown },
  ) {
    super(`[ferry/host] [change-tracker] ${message}`, options);
    this.name = 'TrackerFailure';
  }
}

/** Identifies a directory across removal: inode numbers are reused at once, birth times are not. */
export function directoryIdentity(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.birthtimeNs}`;
}

export interface WatchedTreeOptions {
  hostDir: string;
  hub: WatchHub;
  records: ChangeRecords;
  maxEntries: number;
  maxDepth: number;
  /** The events can no longer be trusted; called once. */
  fail(failure: TrackerFailure): void;
  /** A 'rename' event at the root under the root's own name: maybe the root itself went. */
  onRootEvent(): void;
}

export interface WatchedTree {
  /** Watches and walks the whole workspace. */
  start(): Promise<void>;
  /** lstat, one at a time per path (so records settle in issue order), settling the record. */
  look(path: string): Promise<BigIntStats | undefined>;
  /** Classifications and walks under way, each including the walks it set off. */
  pending(): Promise<void>[];
  /** Closes every watch; later events are ignored. */
  close(): void;
}

export function createWatchedTree(options: WatchedTreeOptions): WatchedTree {
  const { hostDir, hub, records } = options;
  const dirs = new Map<string, DirectoryWatch>();
  const pending = new Set<Promise<void>>();
  const inflight = new Map<string, Promise<BigIntStats | undefined>>();
  const rootName = basename(hostDir);
  let closed = false;
  let batch: Map<string, number> | undefined;

  const fail = (failure: TrackerFailure) => {
    closeAll();
    options.fail(failure);
  };
  const closeAll = () => {
    closed = true;
    for (const watch of dirs.values()) watch.close();
    dirs.clear();
  };
  const checkBounds = () => {
    if (records.size + dirs.size > options.maxEntries) {
      fail(new TrackerFailure(`more than ${options.maxEntries} entries`, 'limits'));
    }
  };

  const look = (path: string): Promise<BigIntStats | undefined> => {
    const previous = inflight.get(path);
    const run = (async () => {
      await previous;
      const statSeq = hub.current();
      const stats = await lstat(path, { bigint: true }).catch(() => undefined);
      records.settle(path, stats?.isFile() ? entryOf(stats) : undefined, statSeq);
      return stats;
    })();
    inflight.set(path, run);
    void run.finally(() => {
      if (inflight.get(path) === run) inflight.delete(path);
    });
    return run;
  };

  const unwatchTree = (dir: string) => {
    const prefix = `${dir}/`;
    for (const [path, watch] of dirs) {
      if (path !== dir && !path.startsWith(prefix)) continue;
      watch.close();
      dirs.delete(path);
    }
    records.forget(dir, hub.current());
  };

  const onEvent = (dir: string, kind: WatchEventKind, name: string | undefined) => {
    const seq = hub.next();
    if (closed || name === undefined) return;
    if (dir === hostDir) {
      if (name === INPUT_DIR_NAME) return;
      // The root's own deletion or move (IN_DELETE_SELF, IN_MOVE_SELF) comes under its base name.
      if (name === rootName && kind === 'rename') options.onRootEvent();
    }
    const path = join(dir, name);
    records.note(path, seq, seq);
    if (kind === 'rename') classify(path, seq);
    checkBounds();
  };

  const classify = (path: string, seq: number) => {
    if (!batch) {
      const paths = new Map<string, number>();
      batch = paths;
      // A burst of events (a tool writing 1,000 files) becomes one batch of lstats.
      const work = new Promise<void>((resolve) =>
        setImmediate(() => {
          batch = undefined;
          void Promise.all([...paths].map(([p, trigger]) => reclassify(p, trigger))).then(() => resolve());
        }),
      );
      pending.add(work);
      void work.finally(() => pending.delete(work));
    }
    if (!batch.has(path)) batch.set(path, seq);
  };

  const reclassify = async (path: string, trigger: number) => {
    const stats = await look(path);
    if (closed) return;
    if (stats?.isDirectory()) await watchTree(path, trigger);
    else if (dirs.has(path)) unwatchTree(path);
  };

  /** Watches `dir`, then reads it: what it holds already counts as made after `trigger`. */
  const watchTree = async (dir: string, trigger: number): Promise<void> => {
    if (closed) return;
    const depth = dir === hostDir ? 0 : dir.slice(hostDir.length + 1).split('/').length;
    if (depth > options.maxDepth) {
      return fail(new TrackerFailure(`more than ${options.maxDepth} directory levels`, 'limits'));
    }
    // Records under a replaced directory go; the walk below brings back those still there.
    if (dirs.has(dir)) unwatchTree(dir);
    try {
      const watch = hub.watch(
        dir,
        (kind, name) => onEvent(dir, kind, name),
        (error) => fail(new TrackerFailure(`watch of ${dir} failed`, 'watch', { cause: error })),
      );
      dirs.set(dir, watch);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone already: the event of its removal is on its way to the parent's watch.
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      return fail(new TrackerFailure(`cannot watch ${dir}`, 'watch', { cause: error }));
    }
    const watchedAt = hub.current();
    const listed = await readWorkspaceDir(dir, depth);
    if (!listed) return;
    const looks = listed.files.map((path) => {
      records.note(path, trigger, watchedAt + 0.5);
      return look(path);
    });
    checkBounds();
    await Promise.all(looks);
    if (!closed) await Promise.all(listed.subdirs.map((sub) => watchTree(sub, trigger)));
  };

  return {
    start: () => watchTree(hostDir, 0),
    look,
    pending: () => [...pending],
    close: closeAll,
  };
}
