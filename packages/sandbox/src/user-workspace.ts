// The host side of a user's workspace as the launcher needs it: `<root>/<username>` and its
// `input_files/`, both real directories, mode 0700, owned by Ferry, before they are bound into a
// sandbox. bwrap follows symbolic links in bind sources, so a link planted where `input_files/`
// should be (by an unsandboxed run) would bind whatever it points at into the sandbox: it is
// replaced by a directory first. The layout is the host's (`createWorkspaces`): same root, same
// realpath, same modes, so both sides name the same directory.
import { spawn } from 'node:child_process';
import { chmod, chown, lstat, mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FerryError, INPUT_DIR_NAME, isValidUsername } from '@ferry/contract';

export interface UserWorkspacePaths {
  /** The real path of the workspaces root. */
  root: string;
  hostDir: string;
  inputDir: string;
}

/** Host uid and gid the tools run as; undefined: Ferry's own (no chown). */
export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

/**
 * Creates (or checks) the root, the user's workspace and its `input_files/`. With an `owner` (the
 * sandbox user, when Ferry is root), the workspace belongs to that user, mode 0700: the only
 * place on the host it may write. `input_files/` stays Ferry's, mode 0755 (readable, never
 * writable, by the tools: the workspace's 0700 keeps everybody else out).
 */
export async function prepareUserWorkspace(
  workspacesRoot: string,
  username: string,
  owner?: WorkspaceOwner,
): Promise<UserWorkspacePaths> {
  const root = await realRoot(workspacesRoot);
  const hostDir = join(root, assertUsername(username));
  await ensureRealDir(hostDir, owner);
  const inputDir = join(hostDir, INPUT_DIR_NAME);
  const stats = await lstat(inputDir).catch(() => undefined);
  if (stats && !stats.isDirectory()) await rm(inputDir, { force: true });
  await ensureRealDir(inputDir, undefined, owner ? 0o755 : 0o700);
  return { root, hostDir, inputDir };
}

/** The workspaces root, created 0700 when missing, as a real path. */
export async function realRoot(workspacesRoot: string): Promise<string> {
  await mkdir(workspacesRoot, { recursive: true, mode: 0o700 });
  return realpath(workspacesRoot);
}

export function assertUsername(username: string): string {
  if (!isValidUsername(username)) {
    throw new FerryError('E_INVALID_INPUT', `Invalid username: ${JSON.stringify(username)}`, {
      field: 'user',
    });
  }
  return username;
}

async function ensureRealDir(dir: string, owner?: WorkspaceOwner, mode = 0o700): Promise<void> {
  await mkdir(dir, { mode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const stats = await lstat(dir);
  const ferry = process.getuid?.();
  if (!stats.isDirectory() || (await realpath(dir)) !== dir) {
    throw new FerryError('E_INTERNAL', `Workspace directory ${dir} is not a real directory`);
  }
  const expected = owner?.uid ?? ferry;
  if (expected !== undefined && stats.uid !== expected) {
    // Ours, made before the sandbox user existed (or for an unsandboxed run): hand it over.
    if (owner !== undefined && stats.uid === ferry) await chown(dir, owner.uid, owner.gid);
    else
      throw new FerryError(
        'E_INTERNAL',
        `Workspace directory ${dir} belongs to uid ${stats.uid}, not ${expected}`,
      );
  }
  if ((stats.mode & 0o777) !== mode) await chmod(dir, mode);
}

/**
 * Bytes the directory takes on disk (allocated blocks, as a disk quota counts them; a sparse file
 * counts what it really uses, hard links once), without following symbolic links or crossing into
 * other file systems, as `du -skx` counts. Walked here for the usual small workspace (spawning du
 * costs more than a server start is allowed to); a tree of more than WALK_LIMIT entries is handed
 * to du itself. Files vanishing during the walk are ignored.
 */
export async function diskUsageBytes(dir: string): Promise<number> {
  const walked = await walkUsage(dir);
  return walked ?? duUsageBytes(dir);
}

const WALK_LIMIT = 2000;

async function walkUsage(dir: string): Promise<number | undefined> {
  const root = await lstat(dir, { bigint: true });
  const linked = new Set<bigint>();
  let blocks = root.blocks;
  let entries = 0;
  const pending = root.isDirectory() ? [dir] : [];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const names = await readdir(current).catch(() => [] as string[]);
    entries += names.length;
    if (entries > WALK_LIMIT) return undefined;
    for (const name of names) {
      const path = join(current, name);
      const stats = await lstat(path, { bigint: true }).catch(() => undefined);
      if (stats === undefined || stats.dev !== root.dev) continue;
      if (stats.nlink > 1n && !stats.isDirectory()) {
        if (linked.has(stats.ino)) continue;
        linked.add(stats.ino);
      }
      blocks += stats.blocks;
      if (stats.isDirectory()) pending.push(path);
    }
  }
  // du -k: 512-byte blocks, in KiB rounded up.
  return Number((blocks * 512n + 1023n) / 1024n) * 1024;
}

function duUsageBytes(dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const du = spawn('du', ['-skx', '--', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    du.stdout.setEncoding('utf8');
    du.stdout.on('data', (text: string) => {
      out += text;
    });
    du.on('error', reject);
    du.on('close', () => {
      const kib = Number(out.split('\t')[0]);
      if (Number.isFinite(kib) && out !== '') resolve(kib * 1024);
      else reject(new Error(`[ferry/sandbox] du could not measure ${dir}`));
    });
  });
}
