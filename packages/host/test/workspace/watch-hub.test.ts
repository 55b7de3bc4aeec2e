// The claim change tracking rests on (watch-hub.ts): every fs.watch watcher of one event loop is
// served by ONE inotify fd, in the kernel's order, so once a marker's event has arrived, every
// change made before the marker was created has been delivered, whichever directory it was in.
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWatchHub, type WatchHub, watchDirectory } from '../../src/workspace/watch-hub.js';
import { createWatchSpy } from './support/watch-spy.js';

let dir: string;
let hub: WatchHub | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-hub-'));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('createWatchHub', () => {
  it('a marker is delivered after every change made before it, across watched directories', async () => {
    hub = createWatchHub({ dir: join(dir, 'sync') });
    const h = hub;
    const dirs = ['a', 'b', join('b', 'c')].map((d) => join(dir, 'ws', d));
    for (const d of dirs) await mkdir(d, { recursive: true });
    const seen = new Map<string, number>();
    const watches = dirs.map((d) =>
      h.watch(
        d,
        (_kind, name) => seen.set(join(d, name ?? ''), h.next()),
        (error) => {
          throw error;
        },
      ),
    );
    try {
      for (let round = 0; round < 50; round++) {
        const written: string[] = [];
        // Half written synchronously (queued before the loop reads), half through the thread pool.
        for (const [i, d] of dirs.entries()) {
          const path = join(d, `sync-${round}-${i}`);
          writeFileSync(path, 'x');
          written.push(path);
        }
        await Promise.all(
          dirs.flatMap((d, i) =>
            [0, 1, 2].map(async (j) => {
              const path = join(d, `async-${round}-${i}-${j}`);
              await writeFile(path, 'y');
              written.push(path);
            }),
          ),
        );
        const mark = h.mark(() => {});
        await mark.touched;
        const at = await mark.delivered;
        for (const path of written) {
          expect(seen.get(path), path).toBeDefined();
          expect(seen.get(path)).toBeLessThan(at);
        }
      }
    } finally {
      for (const w of watches) w.close();
    }
  });

  it('concurrent markers are each delivered, in the order they were created', async () => {
    hub = createWatchHub({ dir: join(dir, 'sync') });
    const order: number[] = [];
    const marks = [];
    for (let i = 0; i < 20; i++) {
      const mark = hub.mark(() => order.push(i));
      await mark.touched;
      marks.push(mark.delivered);
    }
    const numbers = await Promise.all(marks);
    expect(order).toEqual([...Array(20).keys()]);
    expect([...numbers].sort((x, y) => x - y)).toEqual(numbers);
  });

  it('a marker whose event never comes is rejected after the timeout', async () => {
    const spy = createWatchSpy();
    spy.muteWhen = () => true;
    hub = createWatchHub({ dir: join(dir, 'sync'), watch: spy.watch, syncTimeoutMs: 50 });
    const mark = hub.mark(() => {});
    await mark.touched;
    await expect(mark.delivered).rejects.toThrow(/not seen within 50 ms/);
  });

  it('reports a burst of events as large as its limit as a possible overflow', async () => {
    hub = createWatchHub({ dir: join(dir, 'sync'), overflowBurst: 10 });
    let overflows = 0;
    hub.onOverflow(() => overflows++);
    for (let i = 0; i < 10; i++) hub.next();
    expect(overflows).toBe(1);
  });

  it('close() closes its watch, removes its directory and refuses new markers', async () => {
    const spy = createWatchSpy();
    hub = createWatchHub({ dir: join(dir, 'sync'), watch: spy.watch });
    await hub.mark(() => {}).delivered;
    expect(spy.open).toHaveLength(1);
    expect(await readdir(join(dir, 'sync'))).toHaveLength(1);
    await hub.close();
    expect(spy.open).toEqual([]);
    expect(await readdir(join(dir, 'sync'))).toEqual([]);
    await expect(hub.mark(() => {}).touched).rejects.toThrow(/closed/);
  });

  it('recovers when its directory is removed from under it', async () => {
    hub = createWatchHub({ dir: join(dir, 'sync'), watch: watchDirectory });
    await hub.mark(() => {}).delivered;
    await rm(join(dir, 'sync'), { recursive: true });
    await expect(hub.mark(() => {}).touched).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(hub.mark(() => {}).delivered).resolves.toBeGreaterThan(0);
  });
});
