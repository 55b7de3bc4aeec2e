// diskUsageBytes counts what `du -skx` counts (the workspace quota is defined by it), whether it
// walks the tree itself (small trees: no process to spawn before a server start) or hands a big
// one to du: allocated blocks, a sparse file by what it uses, hard links once, symbolic links
// not followed.
import { execFileSync } from 'node:child_process';
import { link, mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskUsageBytes } from '../src/user-workspace.js';
import { hostTempDir } from './support/run-launch.js';

let dir: string;
beforeAll(async () => {
  dir = await hostTempDir('ferry-du-');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const du = (path: string) =>
  Number(execFileSync('du', ['-skx', '--', path], { encoding: 'utf8' }).split('\t')[0]) * 1024;

describe('diskUsageBytes', () => {
  it('a small tree: the same bytes as du -skx (sparse file, hard link, symlink, nesting)', async () => {
    const tree = join(dir, 'small');
    await mkdir(join(tree, 'a/b/c'), { recursive: true });
    await writeFile(join(tree, 'a/one.bin'), Buffer.alloc(300_000, 1));
    await writeFile(join(tree, 'a/b/c/two.txt'), 'two');
    await link(join(tree, 'a/one.bin'), join(tree, 'a/b/hard.bin'));
    await symlink('/usr', join(tree, 'a/usr-link'));
    await writeFile(join(tree, 'sparse.bin'), '');
    await truncate(join(tree, 'sparse.bin'), 2 * 1024 ** 3);
    const counted = await diskUsageBytes(tree);
    expect(counted).toBe(du(tree));
    // The hard link once, the sparse file by what it uses, /usr not at all.
    expect(counted).toBeGreaterThan(300_000);
    expect(counted).toBeLessThan(1024 ** 2);
  });

  it('a tree over the walk limit is measured by du itself, with the same result', async () => {
    const tree = join(dir, 'big');
    await mkdir(tree);
    await Promise.all(Array.from({ length: 2100 }, (_, i) => writeFile(join(tree, `f${i}`), `file ${i}`)));
    expect(await diskUsageBytes(tree)).toBe(du(tree));
  });
});
