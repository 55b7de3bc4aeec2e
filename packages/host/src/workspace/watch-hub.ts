// What every change tracker of one Workspaces shares: a single event order and sync markers.
//
// On Linux, libuv multiplexes all fs.watch watchers of an event loop onto ONE inotify fd and calls
// their callbacks in the kernel queue's order, synchronously. So a number drawn first thing in a
// watcher callback (`next()`) orders events across directories and workspaces, and a marker in a
// Ferry-private directory watched by the same loop is a barrier: once its event has arrived,
// every change made before the marker was placed has been delivered too.
// test/workspace/watch-hub.test.ts checks that claim instead of trusting it.
//
// A marker is one file renamed to a fresh name: a rename allocates nothing and needs no cleanup
// (about 10 µs on ext4; mkdir + rmdir cost ten times that), and inotify never merges events of
// different names, which it does for identical events in a row (two touches of one file).
//
// libuv silently drops the kernel's queue-overflow event, so lost events cannot be seen directly.
// An overflow needs a queue full of unread events, which libuv then reads in one burst; a burst
// of half the kernel's limit is reported as a possible overflow and the trackers walk instead.
import { type FSWatcher, watch as fsWatch, readFileSync, renameSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export type WatchEventKind = 'rename' | 'change';

export interface DirectoryWatch {
  close(): void;
}

/**
 * Watches one directory, not recursively. Throws when the watch cannot be set up (ENOSPC: the
 * user's inotify watch limit); `onError` reports a watch failing later.
 */
export type WatchDirectory = (
  dir: string,
  onEvent: (kind: WatchEventKind, name: string | undefined) => void,
  onError: (error: Error) => void,
) => DirectoryWatch;

export const watchDirectory: WatchDirectory = (dir, onEvent, onError) => {
  // Not persistent: a tracker must never keep the process alive.
  const watcher: FSWatcher = fsWatch(dir, { persistent: false }, (kind, name) =>
    onEvent(kind === 'change' ? 'change' : 'rename', name ?? undefined),
  );
  watcher.on('error', onError);
  return { close: () => watcher.close() };
};

export interface SyncMark {
  /** The marker exists: changes made from now on are delivered after its event. */
  touched: Promise<void>;
  /** The marker's event arrived, with its number; rejects when it did not come in time. */
  delivered: Promise<number>;
}

export interface WatchHub {
  readonly watch: WatchDirectory;
  /** The number of the last event. */
  current(): number;
  /** Numbers an event; watcher callbacks call it before anything else. */
  next(): number;
  /** Places a marker; `onDelivered` runs inside the marker's event callback, in event order. */
  mark(onDelivered: (seq: number) => void): SyncMark;
  /** Called when events may have been dropped; returns an unsubscribe function. */
  onOverflow(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface WatchHubOptions {
  /** A directory only Ferry writes to; each hub makes its own subdirectory there (mode 0700). */
  dir: string;
  /** @default fs.watch */
  watch?: WatchDirectory;
  /** How long a marker's event may take before the hub gives up on it. @default 5000 */
  syncTimeoutMs?: number;
  /** Events read in one burst that count as a possible overflow. @default half the kernel's max_queued_events */
  overflowBurst?: number;
}

interface Waiter {
  onDelivered(seq: number): void;
  resolve(seq: number): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

export function createWatchHub(options: WatchHubOptions): WatchHub {
  const watch = options.watch ?? watchDirectory;
  const timeoutMs = options.syncTimeoutMs ?? 5000;
  const burstLimit = options.overflowBurst ?? Math.max(1, Math.floor(readMaxQueuedEvents() / 2));
  const waiters = new Map<string, Waiter>();
  const overflowListeners = new Set<() => void>();
  let seq = 0;
  let burst = 0;
  let marks = 0;
  let closed = false;
  /** The hub's directory, its watch, and the marker file's current name. */
  let channel: Promise<{ dir: string; watch: DirectoryWatch; marker: string }> | undefined;

  const next = () => {
    seq++;
    // Reset once libuv has finished reading the inotify fd: the check phase follows the poll phase.
    if (burst++ === 0) setImmediate(() => (burst = 0));
    if (burst === burstLimit) for (const listener of overflowListeners) listener();
    return seq;
  };

  const reset = (error: Error) => {
    const old = channel;
    channel = undefined;
    void old?.then((c) => c.watch.close()).catch(() => undefined);
    for (const waiter of waiters.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    waiters.clear();
  };

  const open = () => {
    if (channel) return channel;
    const opening = (async () => {
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      const dir = await mkdtemp(join(options.dir, 'hub-'));
      await writeFile(join(dir, 'm0'), '', { mode: 0o600 });
      const onMarker = (kind: WatchEventKind, name: string | undefined) => {
        const number = next();
        // A rename's IN_MOVED_TO carries the new name; its IN_MOVED_FROM names no waiter.
        const waiter = name === undefined ? undefined : waiters.get(name);
        if (!waiter || kind !== 'rename' || name === undefined) return;
        waiters.delete(name);
        clearTimeout(waiter.timer);
        waiter.onDelivered(number);
        waiter.resolve(number);
      };
      return { dir, watch: watch(dir, onMarker, reset), marker: 'm0' };
    })();
    channel = opening;
    opening.catch(() => {
      if (channel === opening) channel = undefined;
    });
    return opening;
  };

  return {
    watch,
    current: () => seq,
    next,
    mark(onDelivered) {
      const name = `m${++marks}`;
      let waiter: Waiter | undefined;
      const delivered = new Promise<number>((resolve, reject) => {
        waiter = { onDelivered, resolve, reject };
      });
      delivered.catch(() => undefined);
      const touched = (async () => {
        if (closed) throw new Error('[ferry/host] [watch-hub] closed');
        const opened = await open();
        waiters.set(name, waiter as Waiter);
        // Synchronous on purpose: one rename in a private local directory takes microseconds,
        // while a trip through the thread pool costs a loop turn or more under load, twice per
        // call. Being synchronous also keeps concurrent marks in order.
        renameSync(join(opened.dir, opened.marker), join(opened.dir, name));
        opened.marker = name;
        if (waiters.get(name) !== waiter) return;
        (waiter as Waiter).timer = setTimeout(
          // After a long block timers run before the poll phase; one more turn lets it read.
          () =>
            setImmediate(() => {
              if (waiters.get(name) === waiter) {
                reset(new Error(`[ferry/host] [watch-hub] sync marker not seen within ${timeoutMs} ms`));
              }
            }),
          timeoutMs,
        );
      })();
      touched.catch((error: Error) => {
        waiters.delete(name);
        waiter?.reject(error);
        // The directory may be gone (removed by hand): start over with a new one next time.
        reset(error);
      });
      return { touched, delivered };
    },
    onOverflow(listener) {
      overflowListeners.add(listener);
      return () => overflowListeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      const old = channel;
      reset(new Error('[ferry/host] [watch-hub] closed'));
      const opened = await old?.catch(() => undefined);
      if (opened) await rm(opened.dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

function readMaxQueuedEvents(): number {
  try {
    return Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8')) || 16_384;
  } catch {
    return 16_384;
  }
}
