// Workspace detection through the change tracker (change-tracker.ts), driven as the pipeline
// drives it: startDetection() before the "call", finish() after. Every change is made by this
// process, which inotify reports like any other; finish() waits for the end marker's event, so
// no test sleeps.
import { mkdirSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DetectedChanges } from '../../src/workspace/detection-window.js';
import { useTrackerHarness } from './support/tracker-harness.js';

const h = useTrackerHarness();

describe('change tracker', () => {
  it('the first call starts the tracker with one walk; later calls are answered from events', async () => {
    await h.setup();
    await writeFile(h.at('old.txt'), 'before');
    const first = await h.during(() => writeFile(h.at('first.txt'), '1'));
    expect(first).toMatchObject({ rel: ['first.txt'], method: 'events', truncated: false });
    const second = await h.during(() => writeFile(h.at('second.txt'), '2'));
    expect(second).toMatchObject({ rel: ['second.txt'], method: 'events' });
    expect(await h.during(() => {})).toMatchObject({ rel: [], method: 'events' });
  });

  it('finds every file of nested directories made faster than watches can be added', async () => {
    await h.setup();
    await h.during(() => {});
    const expected: string[] = [];
    const result = await h.during(async () => {
      // Synchronously: the tracker cannot watch any of these directories before they are full.
      for (let i = 0; i < 5; i++) {
        const deep = join('gen', `d${i}`, 'x', 'y');
        mkdirSync(h.at(deep), { recursive: true });
        for (let j = 0; j < 40; j++) {
          writeFileSync(h.at(deep, `f${j}.txt`), `${i}-${j}`);
          expected.push(join(deep, `f${j}.txt`));
        }
        writeFileSync(h.at('gen', `d${i}`, 'top.txt'), 'top');
        expected.push(join('gen', `d${i}`, 'top.txt'));
      }
      // Then through the thread pool, racing the tracker's watches and walks of the new directories.
      for (let i = 0; i < 5; i++) {
        await mkdir(h.at('gen', `d${i}`, 'late', 'er'), { recursive: true });
        await Promise.all(
          [0, 1, 2].map((j) => {
            expected.push(join('gen', `d${i}`, 'late', 'er', `g${j}.txt`));
            return writeFile(h.at('gen', `d${i}`, 'late', 'er', `g${j}.txt`), 'g');
          }),
        );
      }
    });
    expect(result.method).toBe('events');
    expect(result.rel).toEqual(expected.sort());
    // The new directories are watched now: a later call sees a file added deep down.
    const later = await h.during(() => writeFile(h.at('gen', 'd3', 'x', 'y', 'new.txt'), 'n'));
    expect(later.rel).toEqual([join('gen', 'd3', 'x', 'y', 'new.txt')]);
  });

  it('reports a modified file; not untouched ones, chmod alone, input_files/ or symlinks', async () => {
    await h.setup();
    for (const name of ['keep.txt', 'edit.txt', 'mode.txt']) await writeFile(h.at(name), 'same');
    await mkdir(h.at('sub'));
    await writeFile(h.at('sub', 'append.log'), 'a');
    await h.during(() => {});
    const result = await h.during(async () => {
      await writeFile(h.at('edit.txt'), 'changed');
      await writeFile(h.at('sub', 'append.log'), 'b', { flag: 'a' });
      await chmod(h.at('mode.txt'), 0o600);
      await mkdir(h.ws.inputDir);
      await writeFile(join(h.ws.inputDir, 'in.csv'), 'input');
      await symlink('/etc/passwd', h.at('link'));
    });
    expect(result.rel).toEqual(['edit.txt', join('sub', 'append.log')]);
  });

  it('a file or directory made and removed during the call is not reported', async () => {
    await h.setup();
    await writeFile(h.at('doomed.txt'), 'old');
    await h.during(() => {});
    const result = await h.during(async () => {
      await writeFile(h.at('tmp.txt'), 'x');
      await rm(h.at('tmp.txt'));
      mkdirSync(h.at('scratch', 'deep'), { recursive: true });
      writeFileSync(h.at('scratch', 'deep', 'x.bin'), 'x');
      await rm(h.at('scratch'), { recursive: true });
      await rm(h.at('doomed.txt'));
      await writeFile(h.at('kept.txt'), 'k');
    });
    expect(result.rel).toEqual(['kept.txt']);
  });

  it('renames: files and whole directories are reported under their new paths', async () => {
    await h.setup();
    await writeFile(h.at('old.txt'), 'o');
    await writeFile(h.at('target.txt'), 'v1');
    await mkdir(h.at('dir1', 'sub'), { recursive: true });
    await writeFile(h.at('dir1', 'a.txt'), 'a');
    await writeFile(h.at('dir1', 'sub', 'b.txt'), 'b');
    await h.during(() => {});
    const result = await h.during(async () => {
      await rename(h.at('old.txt'), h.at('new.txt'));
      await rename(h.at('dir1'), h.at('dir2'));
      // An atomic save: write a temporary file, rename it over the target.
      await writeFile(h.at('.target.tmp'), 'v2');
      await rename(h.at('.target.tmp'), h.at('target.txt'));
    });
    expect(result.rel).toEqual([
      join('dir2', 'a.txt'),
      join('dir2', 'sub', 'b.txt'),
      'new.txt',
      'target.txt',
    ]);
    // The moved directory is watched under its new name, and only there.
    const later = await h.during(() => writeFile(h.at('dir2', 'sub', 'c.txt'), 'c'));
    expect(later.rel).toEqual([join('dir2', 'sub', 'c.txt')]);
    expect(h.spy.open.filter((d) => d.includes('dir1'))).toEqual([]);
    // Moved out of the workspace and back: the files are where they were, unchanged.
    await rename(h.at('dir2'), join(h.dir, 'away'));
    await rename(join(h.dir, 'away'), h.at('dir3'));
    const back = await h.during(() => writeFile(h.at('dir3', 'd.txt'), 'd'));
    expect(back.rel).toContain(join('dir3', 'd.txt'));
  });

  it('a directory removed and made again under its name (same inode number on ext4) is watched anew', async () => {
    await h.setup();
    await mkdir(h.at('out'));
    await writeFile(h.at('out', 'old.txt'), 'o');
    await h.during(() => {});
    const between = h.spy.closed(h.at('out'));
    await rm(h.at('out'), { recursive: true });
    await mkdir(h.at('out'));
    await between;
    expect((await h.during(() => writeFile(h.at('out', 'a.txt'), 'a'))).rel).toEqual([join('out', 'a.txt')]);
    const inside = await h.during(async () => {
      await rm(h.at('out'), { recursive: true });
      await mkdir(h.at('out'));
      await writeFile(h.at('out', 'a.txt'), 'a');
    });
    expect(inside.rel).toEqual([join('out', 'a.txt')]);
    expect((await h.during(() => writeFile(h.at('out', 'b.txt'), 'b'))).rel).toEqual([join('out', 'b.txt')]);
    expect(h.spy.open.filter((d) => d === h.at('out'))).toHaveLength(1);
  });

  it('concurrent calls: each reports what changed between its own start and end', async () => {
    await h.setup();
    await h.during(() => {});
    const a = await h.ws.startDetection();
    await writeFile(h.at('x.txt'), 'during a only');
    const b = await h.ws.startDetection();
    await writeFile(h.at('y.txt'), 'during both');
    const fromA = await a.finish();
    await writeFile(h.at('z.txt'), 'during b only');
    const fromB = await b.finish();
    const rel = (c: DetectedChanges) => c.paths.map((p) => relative(h.ws.hostDir, p));
    expect(rel(fromA)).toEqual(['x.txt', 'y.txt']);
    expect(rel(fromB)).toEqual(['y.txt', 'z.txt']);
    expect([fromA.method, fromB.method]).toEqual(['events', 'events']);
    // Two first calls of another user share one tracker.
    const bob = await h.workspaces.forUser('bob');
    const [c, d] = await Promise.all([bob.startDetection(), bob.startDetection()]);
    await writeFile(join(bob.hostDir, 'b.txt'), 'b');
    expect((await c.finish()).paths).toEqual([join(bob.hostDir, 'b.txt')]);
    expect((await d.finish()).paths).toEqual([join(bob.hostDir, 'b.txt')]);
    expect(h.spy.open.filter((w) => w === bob.hostDir)).toHaveLength(1);
  });

  it('a disposed window (failed call) stops recording; the next call is unaffected', async () => {
    await h.setup();
    await h.during(() => {});
    const failed = await h.ws.startDetection();
    await writeFile(h.at('from-failed-call.txt'), 'f');
    failed.dispose();
    expect((await h.during(() => writeFile(h.at('next.txt'), 'n'))).rel).toEqual(['next.txt']);
  });
});
