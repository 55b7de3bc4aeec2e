// A clock the test moves by hand: timers fire in time order during advance(), synchronously, so a
// watchdog test states "35 seconds pass" instead of sleeping.
import type { Clock, TimerHandle } from '../../../src/pipeline/clock.js';

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

export class ManualClock implements Clock {
  private time: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  constructor(start = Date.parse('2026-11-23T12:00:00Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), seq: id, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, Timer] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at > end) continue;
        if (!next || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq))
          next = entry;
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].callback();
    }
    this.time = end;
  }

  /** Seconds-based convenience. */
  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }
}
