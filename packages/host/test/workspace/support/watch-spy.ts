// A WatchDirectory that wraps the real one (or fails on demand) and keeps count of open watches,
// so tests can check what is watched, make a watch fail as ENOSPC does, or swallow events.
import { type WatchDirectory, watchDirectory } from '../../../src/workspace/watch-hub.js';

export interface WatchSpy {
  watch: WatchDirectory;
  /** Directories watched now (a directory watched twice appears twice). */
  readonly open: string[];
  /** Every directory a watch was asked for, in order. */
  readonly requested: string[];
  /** Throw ENOSPC for directories this returns true for. */
  failWhen: (dir: string) => boolean;
  /** Drop events of directories this returns true for. */
  muteWhen: (dir: string) => boolean;
  /** Resolves when the next watch of `dir` to close has closed. */
  closed(dir: string): Promise<void>;
}

export function createWatchSpy(): WatchSpy {
  const open: string[] = [];
  const requested: string[] = [];
  const waiting = new Map<string, (() => void)[]>();
  const spy: WatchSpy = {
    open,
    requested,
    failWhen: () => false,
    muteWhen: () => false,
    watch(dir, onEvent, onError) {
      requested.push(dir);
      if (spy.failWhen(dir)) {
        throw Object.assign(
          new Error(`ENOSPC: System limit for number of file watchers reached, watch '${dir}'`),
          {
            code: 'ENOSPC',
          },
        );
      }
      const inner = watchDirectory(
        dir,
        (kind, name) => {
          if (!spy.muteWhen(dir)) onEvent(kind, name);
        },
        onError,
      );
      open.push(dir);
      let closed = false;
      return {
        close() {
          if (closed) return;
          closed = true;
          inner.close();
          open.splice(open.indexOf(dir), 1);
          for (const resolve of waiting.get(dir) ?? []) resolve();
          waiting.delete(dir);
        },
      };
    },
    closed: (dir) => new Promise<void>((resolve) => waiting.set(dir, [...(waiting.get(dir) ?? []), resolve])),
  };
  return spy;
}
