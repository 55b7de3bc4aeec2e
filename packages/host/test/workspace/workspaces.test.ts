import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFiles } from '../../src/workspace/workspace-snapshot.js';
import { createWorkspaces, type Workspace } from '../../src/workspace/workspaces.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-ws-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const input = (name: string, content: string, fileId = 'f1') => ({
  name,
  fileId,
  size: Buffer.byteLength(content),
  open: async () => Readable.from([Buffer.from(content)]),
});

describe('createWorkspaces', () => {
  it('creates <root>/<username> with mode 0700; unsandboxed, the tool sees the host path', async () => {
    const ws = await createWorkspaces({ root: join(dir, 'root') }).forUser('alice');
    expect(ws.hostDir).toBe(join(dir, 'root', 'alice'));
    expect(ws.toolDir).toBe(ws.hostDir);
    expect(ws.inputDir).toBe(join(ws.hostDir, 'input_files'));
    expect((await stat(ws.hostDir)).mode & 0o777).toBe(0o700);
  });

  it('tightens an existing directory and refuses a symlink in its place', async () => {
    const root = join(dir, 'root');
    await mkdir(join(root, 'bob'), { recursive: true, mode: 0o777 });
    await chmod(join(root, 'bob'), 0o777);
    const workspaces = createWorkspaces({ root });
    expect((await stat((await workspaces.forUser('bob')).hostDir)).mode & 0o777).toBe(0o700);
    await symlink(dir, join(root, 'eve'));
    await expect(workspaces.forUser('eve')).rejects.toMatchObject({ code: 'E_INTERNAL' });
  });

  it('checks the directory again on every use: a later loosened mode or a symlink swapped in is met', async () => {
    const root = join(dir, 'root');
    const workspaces = createWorkspaces({ root });
    const first = await workspaces.forUser('carol');
    // Already private: the quick check answers, with the same directory.
    expect((await workspaces.forUser('carol')).hostDir).toBe(first.hostDir);
    await chmod(first.hostDir, 0o755);
    await workspaces.forUser('carol');
    expect((await stat(first.hostDir)).mode & 0o777).toBe(0o700);
    await rm(first.hostDir, { recursive: true });
    await symlink(dir, first.hostDir);
    await expect(workspaces.forUser('carol')).rejects.toMatchObject({ code: 'E_INTERNAL' });
  });

  it('rejects usernames that are not one safe path component', async () => {
    const workspaces = createWorkspaces({ root: dir });
    for (const bad of ['../x', '.hidden', 'a/b', '', 'x'.repeat(200)]) {
      await expect(workspaces.forUser(bad)).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
    }
  });

  it('maps between host and tool paths (sandbox view /tmp/<username>)', async () => {
    const ws = await createWorkspaces({ root: dir, toolRoot: '/tmp' }).forUser('alice');
    expect(ws.toolDir).toBe('/tmp/alice');
    expect(ws.toToolPath(join(ws.hostDir, 'out', 'a.png'))).toBe('/tmp/alice/out/a.png');
    expect(ws.toToolPath(ws.hostDir)).toBe('/tmp/alice');
    expect(ws.toHostPath('/tmp/alice/out/../b.txt')).toBe(join(ws.hostDir, 'b.txt'));
    expect(ws.toHostPath('/tmp/alice')).toBe(ws.hostDir);
    expect(ws.toHostPath('/tmp/alice/../bob/x')).toBeUndefined();
    expect(ws.toHostPath('/tmp/alicex/y')).toBeUndefined();
    expect(ws.toHostPath('/etc/passwd')).toBeUndefined();
    expect(ws.toHostPath('relative.txt')).toBeUndefined();
    expect(ws.toHostPath('/tmp/alice/a\0b')).toBeUndefined();
    expect(() => ws.toToolPath('/etc/passwd')).toThrow(/outside/);
  });
});

describe('snapshot', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await createWorkspaces({ root: dir }).forUser('alice');
  });

  it('sees new and changed regular files, not input_files, symlinks or unchanged files', async () => {
    await writeFile(join(ws.hostDir, 'same.txt'), 'same');
    await writeFile(join(ws.hostDir, 'grows.txt'), 'a');
    await writeFile(join(ws.hostDir, 'touched.txt'), 'a');
    const before = await ws.snapshot();
    await writeFile(join(ws.hostDir, 'grows.txt'), 'ab');
    await utimes(join(ws.hostDir, 'touched.txt'), new Date(), new Date(Date.now() + 5000));
    await mkdir(join(ws.hostDir, 'sub', 'deeper'), { recursive: true });
    await writeFile(join(ws.hostDir, 'sub', 'deeper', 'new.csv'), 'x');
    await mkdir(ws.inputDir);
    await writeFile(join(ws.inputDir, 'input.csv'), 'ignored');
    await symlink('/etc/passwd', join(ws.hostDir, 'link'));
    const after = await ws.snapshot();
    expect(changedFiles(before, after)).toEqual([
      join(ws.hostDir, 'grows.txt'),
      join(ws.hostDir, 'sub', 'deeper', 'new.csv'),
      join(ws.hostDir, 'touched.txt'),
    ]);
    expect(after.truncated).toBe(false);
  });

  it('a file replaced by another with the same size and mtime still counts (inode)', async () => {
    const path = join(ws.hostDir, 'r.txt');
    await writeFile(path, 'one');
    const before = await ws.snapshot();
    const { mtime } = await stat(path);
    await writeFile(join(ws.hostDir, 'tmp'), 'two');
    await utimes(join(ws.hostDir, 'tmp'), mtime, mtime);
    await rm(path);
    const { rename } = await import('node:fs/promises');
    await rename(join(ws.hostDir, 'tmp'), path);
    expect(changedFiles(before, await ws.snapshot())).toContain(path);
  });

  it('stops at maxEntries and says so', async () => {
    const small = await createWorkspaces({ root: dir, snapshot: { maxEntries: 3 } }).forUser('bob');
    for (let i = 0; i < 5; i++) await writeFile(join(small.hostDir, `f${i}`), 'x');
    const snap = await small.snapshot();
    expect(snap.truncated).toBe(true);
    expect(snap.files.size).toBe(3);
  });
});

describe('materializeInput', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await createWorkspaces({ root: dir }).forUser('alice');
  });

  it('writes a read-only regular file (not a symlink) with the exact bytes', async () => {
    const toolPath = await ws.materializeInput(input('sales.csv', 'a,b\n1,2\n'));
    expect(toolPath).toBe(join(ws.toolDir, 'input_files', 'sales.csv'));
    const info = await lstat(toolPath);
    expect(info.isFile()).toBe(true);
    expect(info.mode & 0o777).toBe(0o444);
    expect(await readFile(toolPath, 'utf8')).toBe('a,b\n1,2\n');
  });

  it('reuses an untouched copy, rewrites a tampered or outdated one', async () => {
    let opened = 0;
    const counted = (content: string, fileId: string) => ({
      ...input('x.txt', content, fileId),
      open: async () => {
        opened++;
        return Readable.from([Buffer.from(content)]);
      },
    });
    const path = await ws.materializeInput(counted('v1', 'f1'));
    await ws.materializeInput(counted('v1', 'f1'));
    expect(opened).toBe(1);
    // The tool (unsandboxed, or as root) changed the copy: ctime moves, so it is rewritten.
    await chmod(path, 0o644);
    await writeFile(path, 'v1'); // same size, same content length
    await ws.materializeInput(counted('v1', 'f1'));
    expect(opened).toBe(2);
    expect((await stat(path)).mode & 0o777).toBe(0o444);
    // A new version of the file.
    await ws.materializeInput(counted('v2!', 'f2'));
    expect(opened).toBe(3);
    expect(await readFile(path, 'utf8')).toBe('v2!');
  });

  it('repairs an input_files the tool replaced by a symlink, never writing through it', async () => {
    const outside = join(dir, 'outside');
    await mkdir(outside);
    await symlink(outside, ws.inputDir);
    await ws.materializeInput(input('a.txt', 'safe'));
    expect((await lstat(ws.inputDir)).isDirectory()).toBe(true);
    expect(await readFile(join(ws.inputDir, 'a.txt'), 'utf8')).toBe('safe');
    await expect(stat(join(outside, 'a.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a name that is not one path component, and a short stream', async () => {
    await expect(ws.materializeInput(input('../evil.txt', 'x'))).rejects.toThrow(/single file name/);
    await expect(ws.materializeInput({ ...input('short.txt', 'abc'), size: 10 })).rejects.toThrow(/3 of 10/);
    await expect(stat(join(ws.inputDir, 'short.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
