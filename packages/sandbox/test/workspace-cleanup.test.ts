import { lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearSessionFiles, isClearedWorkspace, removeUserWorkspace } from '../src/workspace-cleanup.js';
import { hostTempDir } from './support/run-launch.js';

let dir: string;
let root: string;
let outside: string;
beforeEach(async () => {
  dir = await hostTempDir('ferry-cleanup-');
  root = join(dir, 'workspaces');
  outside = join(dir, 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'keep.txt'), 'not the workspace’s');
  const alice = join(root, 'alice');
  await mkdir(join(alice, 'input_files'), { recursive: true, mode: 0o700 });
  await mkdir(join(alice, 'out', 'deep'), { recursive: true });
  await writeFile(join(alice, 'report.html'), 'r');
  await writeFile(join(alice, 'out', 'deep', 'x.bin'), 'x');
  await writeFile(join(alice, 'input_files', 'sales.csv'), 'a,b');
  // Links out of the workspace: they go, what they point at stays.
  await symlink(outside, join(alice, 'link-dir'));
  await symlink(join(outside, 'keep.txt'), join(alice, 'out', 'link-file'));
  await mkdir(join(root, 'bob'), { mode: 0o700 });
  await writeFile(join(root, 'bob', 'b.txt'), 'bob');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('clearSessionFiles', () => {
  it('empties the workspace (inputs included), follows no link, leaves other users alone', async () => {
    const inputsBefore = await stat(join(root, 'alice', 'input_files'));
    const result = await clearSessionFiles({ username: 'alice', hostDir: join(root, 'alice') });
    expect(result).toEqual({ removed: 4 });
    expect(await readdir(join(root, 'alice'))).toEqual(['input_files']);
    // input_files/ is emptied in place: the same directory (a running sandbox binds it on its own).
    expect(await readdir(join(root, 'alice', 'input_files'))).toEqual([]);
    expect((await stat(join(root, 'alice', 'input_files'))).ino).toBe(inputsBefore.ino);
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('not the workspace’s');
    expect(await readFile(join(root, 'bob', 'b.txt'), 'utf8')).toBe('bob');
    // The directory itself stays (a running sandbox's bind still points at it).
    expect((await lstat(join(root, 'alice'))).isDirectory()).toBe(true);
  });

  it('a missing workspace is already clean; a workspace that is a link is refused', async () => {
    expect(await clearSessionFiles({ username: 'carol', hostDir: join(root, 'carol') })).toEqual({
      removed: 0,
    });
    await symlink(outside, join(root, 'dave'));
    await expect(clearSessionFiles({ username: 'dave', hostDir: join(root, 'dave') })).rejects.toThrow(
      /not a real directory/,
    );
    expect(await readdir(outside)).toEqual(['keep.txt']);
  });

  it('an input_files that is a link (planted by a tool) is removed, not followed or kept', async () => {
    await rm(join(root, 'bob'), { recursive: true });
    await mkdir(join(root, 'bob'), { mode: 0o700 });
    await symlink(outside, join(root, 'bob', 'input_files'));
    expect(await clearSessionFiles({ username: 'bob', hostDir: join(root, 'bob') })).toEqual({ removed: 1 });
    expect(await readdir(join(root, 'bob'))).toEqual([]);
    expect(await readdir(outside)).toEqual(['keep.txt']);
  });
});

describe('isClearedWorkspace', () => {
  it('is what a clear leaves: nothing, or an empty input_files/; a missing workspace too', async () => {
    const alice = join(root, 'alice');
    expect(await isClearedWorkspace(alice)).toBe(false);
    await clearSessionFiles({ username: 'alice', hostDir: alice });
    expect(await isClearedWorkspace(alice)).toBe(true);
    await writeFile(join(alice, 'input_files', 'in.csv'), 'a');
    expect(await isClearedWorkspace(alice)).toBe(false);
    await rm(join(alice, 'input_files'), { recursive: true });
    expect(await isClearedWorkspace(alice)).toBe(true);
    expect(await isClearedWorkspace(join(root, 'bob'))).toBe(false);
    expect(await isClearedWorkspace(join(root, 'nobody'))).toBe(true);
  });
});

describe('removeUserWorkspace', () => {
  it('removes the whole workspace and its generated /etc files, and only that user’s', async () => {
    await mkdir(join(root, '.ferry-sandbox', 'alice'), { recursive: true });
    await mkdir(join(root, '.ferry-sandbox', 'bob'), { recursive: true });
    await writeFile(join(root, '.ferry-sandbox', 'alice', 'passwd'), 'alice:x:999:995::/tmp/alice:/bin/sh\n');
    expect(await removeUserWorkspace('alice', { workspacesRoot: root })).toBe(true);
    expect(await readdir(root)).toEqual(['.ferry-sandbox', 'bob']);
    expect(await readdir(join(root, '.ferry-sandbox'))).toEqual(['bob']);
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('not the workspace’s');
    expect(await removeUserWorkspace('alice', { workspacesRoot: root })).toBe(false);
  });

  it('a link in place of a workspace is unlinked, its target kept; invalid names are refused', async () => {
    await symlink(outside, join(root, 'erin'));
    expect(await removeUserWorkspace('erin', { workspacesRoot: root })).toBe(true);
    expect(await readdir(outside)).toEqual(['keep.txt']);
    await expect(removeUserWorkspace('..', { workspacesRoot: root })).rejects.toMatchObject({
      code: 'E_INVALID_INPUT',
    });
    await expect(removeUserWorkspace('bob/../alice', { workspacesRoot: root })).rejects.toMatchObject({
      code: 'E_INVALID_INPUT',
    });
  });
});
