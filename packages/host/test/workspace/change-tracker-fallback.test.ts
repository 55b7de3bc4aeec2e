// When the change tracker cannot be trusted, detection walks (and says so in `method`); and the
// tracker's watches are closed when they are no longer needed.
import { chmodSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTrackerHarness } from './support/tracker-harness.js';

const h = useTrackerHarness();

describe('change tracker: falling back to walks', () => {
  it('walks when no watch can be set up (ENOSPC), and keeps walking until retryAfterMs', async () => {
    await h.setup();
    h.spy.failWhen = () => true;
    await writeFile(h.at('old.txt'), 'o');
    const first = await h.during(() => writeFile(h.at('a.txt'), 'a'));
    expect(first).toMatchObject({ rel: ['a.txt'], method: 'walk' });
    h.spy.failWhen = () => false;
    const second = await h.during(() => writeFile(h.at('old.txt'), 'changed'));
    expect(second).toMatchObject({ rel: ['old.txt'], method: 'walk' });
  });

  it('a watch failing during a call (new directory) makes that call walk; the next one watches again', async () => {
    await h.setup({ retryAfterMs: 0 });
    await writeFile(h.at('edited.txt'), 'v1');
    await h.during(() => {});
    h.spy.failWhen = (d) => d.endsWith('blocked');
    const result = await h.during(async () => {
      await writeFile(h.at('edited.txt'), 'v2');
      await mkdir(h.at('blocked'));
      await writeFile(h.at('blocked', 'inside.txt'), 'i');
      await writeFile(h.at('after.txt'), 'a');
    });
    expect(result).toMatchObject({ method: 'walk' });
    expect(result.rel).toEqual(['after.txt', join('blocked', 'inside.txt'), 'edited.txt']);
    h.spy.failWhen = () => false;
    const next = await h.during(() => writeFile(h.at('blocked', 'more.txt'), 'm'));
    expect(next).toMatchObject({ rel: [join('blocked', 'more.txt')], method: 'events' });
  });

  it('a burst large enough to overflow the inotify queue makes the call walk', async () => {
    await h.setup({ overflowBurst: 50 });
    await h.during(() => {});
    const result = await h.during(() => {
      for (let i = 0; i < 60; i++) writeFileSync(h.at(`burst-${i}.txt`), 'b');
    });
    expect(result.method).toBe('walk');
    expect(result.rel).toHaveLength(60);
    const next = await h.during(() => writeFile(h.at('calm.txt'), 'c'));
    expect(next).toMatchObject({ rel: ['calm.txt'], method: 'events' });
  });

  it('an end marker that never arrives makes the call walk', async () => {
    await h.setup({ syncTimeoutMs: 50 });
    await h.during(() => {});
    const result = await h.during(async () => {
      h.spy.muteWhen = (d) => d.includes('.ferry-sync');
      await writeFile(h.at('late.txt'), 'l');
    });
    expect(result).toMatchObject({ rel: ['late.txt'], method: 'walk' });
    h.spy.muteWhen = () => false;
    expect(await h.during(() => writeFile(h.at('ok.txt'), 'o'))).toMatchObject({
      rel: ['ok.txt'],
      method: 'events',
    });
  });

  it('a workspace past the walk bounds is walked, without rebuilding the tracker every call', async () => {
    await h.setup({}, { maxEntries: 5 });
    for (let i = 0; i < 8; i++) await writeFile(h.at(`f${i}.txt`), 'f');
    const first = await h.during(() => writeFile(h.at('f0.txt'), 'changed'));
    expect(first).toMatchObject({ method: 'walk', truncated: true });
    const watched = h.spy.requested.length;
    expect((await h.during(() => {})).method).toBe('walk');
    expect(h.spy.requested.length).toBe(watched);
  });

  it("'walk' detection never watches", async () => {
    await h.setup({ method: 'walk' });
    expect(await h.during(() => writeFile(h.at('w.txt'), 'w'))).toMatchObject({
      rel: ['w.txt'],
      method: 'walk',
    });
    expect(h.spy.requested).toEqual([]);
  });

  it('a workspace removed and made again, between calls and during one', async () => {
    await h.setup();
    await writeFile(h.at('old.txt'), 'o');
    await h.during(() => {});
    await rm(h.ws.hostDir, { recursive: true });
    const again = await h.workspaces.forUser('alice');
    const between = await h.during(() => writeFile(join(again.hostDir, 'fresh.txt'), 'f'), again);
    expect(between).toMatchObject({ rel: ['fresh.txt'], method: 'events' });
    const inside = await h.during(async () => {
      await rm(again.hostDir, { recursive: true });
      await mkdir(again.hostDir, { mode: 0o700 });
      await writeFile(join(again.hostDir, 'fresh.txt'), 'f');
      await writeFile(join(again.hostDir, 'new.txt'), 'n');
    }, again);
    expect(inside.method).toBe('walk');
    expect(inside.rel).toEqual(['fresh.txt', 'new.txt']);
  });
});

describe('change tracker: watches', () => {
  it('unwatches removed directories, and close() ends every watch and the sync directory', async () => {
    await h.setup();
    await mkdir(h.at('a', 'b'), { recursive: true });
    await h.during(() => {});
    expect(h.spy.open.filter((d) => d.startsWith(h.ws.hostDir)).sort()).toEqual([
      h.ws.hostDir,
      h.at('a'),
      h.at('a', 'b'),
    ]);
    await h.during(() => rm(h.at('a'), { recursive: true }));
    expect(h.spy.open.filter((d) => d.startsWith(h.ws.hostDir))).toEqual([h.ws.hostDir]);
    await h.workspaces.close();
    expect(h.spy.open).toEqual([]);
    expect(await readdir(join(h.dir, 'root', '.ferry-sync'))).toEqual([]);
    // Still usable afterwards, by walking.
    expect(await h.during(() => writeFile(h.at('after.txt'), 'a'))).toMatchObject({ method: 'walk' });
  });

  it('a tracker idle for idleMs stops watching; the next call starts it again', async () => {
    await h.setup({ idleMs: 1 });
    const rootClosed = h.spy.closed(h.ws.hostDir);
    await h.during(() => {});
    await rootClosed;
    expect(h.spy.open.filter((d) => d.startsWith(h.ws.hostDir))).toEqual([]);
    expect(await h.during(() => writeFile(h.at('x.txt'), 'x'))).toMatchObject({
      rel: ['x.txt'],
      method: 'events',
    });
  });

  it('a directory made unreadable does not stop detection elsewhere', async () => {
    await h.setup();
    await mkdir(h.at('locked'));
    await h.during(() => {});
    const result = await h.during(async () => {
      chmodSync(h.at('locked'), 0o000);
      await writeFile(h.at('open.txt'), 'o');
    });
    chmodSync(h.at('locked'), 0o700);
    expect(result.rel).toEqual(['open.txt']);
  });
});
