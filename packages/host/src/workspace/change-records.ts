// The bookkeeping of a change tracker, without I/O: what Ferry last saw of each file, and which
// paths changed inside each call window. Every number is a position in the watch hub's event
// order (watch-hub.ts).
//
// A record's lstat was issued when the hub was at `statSeq`; it reflects every change made before
// the syscall, and any change after it produces an event numbered above `statSeq`. So a record is
// the file's state at a window's start S when `statSeq < S` and no event for the path came after
// `statSeq` (`eventSeq <= statSeq`); otherwise the state at S is 'unknown' and a change in the
// window is reported without comparing. Changes move records on, so a window keeps the state at
// its start of every path it sees change (or its record move) in `before`.
import type { BigIntStats } from 'node:fs';
import type { SnapshotEntry } from './workspace-snapshot.js';

/** A path's state when a window started: a regular file, nothing (or not a regular file), or not known. */
export type Baseline = SnapshotEntry | 'absent' | 'unknown';

export interface ChangeWindow {
  /** The hub's number when the window was opened: the start until the start marker's event arrives. */
  readonly openSeq: number;
  /** The start marker's number. */
  start?: number;
  /** The end marker's number: later events belong to other windows. */
  end?: number;
  /** Path → the highest number of a change seen in the window. */
  readonly touched: Map<string, number>;
  readonly before: Map<string, Baseline>;
}

interface FileRecord {
  /** Undefined: not a regular file, or not seen yet. */
  entry: SnapshotEntry | undefined;
  statSeq: number;
  eventSeq: number;
}

const startOf = (window: ChangeWindow) => window.start ?? window.openSeq;

export class ChangeRecords {
  readonly #records = new Map<string, FileRecord>();
  /** Paths with an event after their last lstat. */
  readonly #dirty = new Set<string>();
  readonly #windows = new Set<ChangeWindow>();

  get size(): number {
    return this.#records.size;
  }

  get openWindows(): number {
    return this.#windows.size;
  }

  openWindow(openSeq: number): ChangeWindow {
    const window: ChangeWindow = { openSeq, touched: new Map(), before: new Map() };
    this.#windows.add(window);
    return window;
  }

  closeWindow(window: ChangeWindow): void {
    this.#windows.delete(window);
  }

  /**
   * `path` changed at some point in (lo, hi]: an event is lo = hi = its number. A file found by
   * walking a new directory was made after the event that revealed the directory (lo) and before
   * the walk read it, which may be after event c, the last one before its watch began: hi = c + 0.5.
   */
  note(path: string, lo: number, hi: number): void {
    for (const window of this.#windows) {
      const start = startOf(window);
      if (hi <= start || (window.end !== undefined && lo >= window.end)) continue;
      if (!window.before.has(path)) window.before.set(path, this.#baseline(path, start));
      if ((window.touched.get(path) ?? -1) < hi) window.touched.set(path, hi);
    }
    // A walk's finding is reflected by any lstat issued after the walk: c, not c + 0.5.
    const eventSeq = Math.floor(hi);
    const record = this.#records.get(path);
    if (record) record.eventSeq = Math.max(record.eventSeq, eventSeq);
    else this.#records.set(path, { entry: undefined, statSeq: -1, eventSeq });
    this.#dirty.add(path);
  }

  /** An lstat issued at `statSeq` found `entry` (undefined: absent or not a regular file). */
  settle(path: string, entry: SnapshotEntry | undefined, statSeq: number): void {
    this.#keepBefore(path, statSeq);
    const eventSeq = this.#records.get(path)?.eventSeq ?? -1;
    const reliable = eventSeq <= statSeq;
    if (reliable) this.#dirty.delete(path);
    // A reliable "absent" is what no record means; dropping it keeps the map to existing files.
    if (!entry && reliable) this.#records.delete(path);
    else this.#records.set(path, { entry, statSeq, eventSeq });
  }

  /** Drops every record under `dir` (removed or replaced); open windows keep what they need. */
  forget(dir: string, seq: number): void {
    const prefix = `${dir}/`;
    for (const path of this.#records.keys()) {
      if (!path.startsWith(prefix)) continue;
      this.#keepBefore(path, seq);
      this.#records.delete(path);
      this.#dirty.delete(path);
    }
  }

  dirtyPaths(): string[] {
    return [...this.#dirty];
  }

  isDirty(path: string): boolean {
    return this.#dirty.has(path);
  }

  /**
   * What `path` is now, as far as delivered events tell: with no event since its lstat, any change
   * after that lstat would have produced one, so the record still holds.
   */
  current(path: string): Baseline {
    const record = this.#records.get(path);
    if (!record) return 'absent';
    if (record.eventSeq > record.statSeq) return 'unknown';
    return record.entry ?? 'absent';
  }

  /** Paths that changed between the window's start and end markers. */
  candidates(window: ChangeWindow): string[] {
    const start = startOf(window);
    const out: string[] = [];
    for (const [path, last] of window.touched) if (last > start) out.push(path);
    return out;
  }

  /**
   * What the window knows of `path` at its start, for comparing a whole walk after the tracker
   * failed: a path it never saw change still has the record it had then.
   */
  beforeFor(window: ChangeWindow, path: string): Baseline {
    return window.before.get(path) ?? this.current(path);
  }

  /** Current regular files, as a snapshot walk would list them (valid while nothing is dirty). */
  files(): Map<string, SnapshotEntry> {
    const out = new Map<string, SnapshotEntry>();
    for (const [path, record] of this.#records) if (record.entry) out.set(path, record.entry);
    return out;
  }

  /** Before a record changes at `seq`, open windows that started earlier keep its old state. */
  #keepBefore(path: string, seq: number): void {
    for (const window of this.#windows) {
      const start = startOf(window);
      // Inclusive: keeping a state too early is safe (#baseline judges it against the start).
      if (window.end === undefined && start <= seq && !window.before.has(path)) {
        window.before.set(path, this.#baseline(path, start));
      }
    }
  }

  #baseline(path: string, start: number): Baseline {
    const record = this.#records.get(path);
    if (!record) return 'absent';
    if (record.statSeq < start && record.eventSeq <= record.statSeq) return record.entry ?? 'absent';
    return 'unknown';
  }
}

/** Whether a file now differs from its state at the window's start (unknown counts as changed). */
export function changedSince(before: Baseline, now: SnapshotEntry): boolean {
  if (before === 'absent' || before === 'unknown') return true;
  return before.size !== now.size || before.mtimeNs !== now.mtimeNs || before.ino !== now.ino;
}

export function entryOf(stats: BigIntStats): SnapshotEntry {
  return { size: stats.size, mtimeNs: stats.mtimeNs, ino: stats.ino };
}
