// Cleanup of workspaces. Everything a user should keep is in My Files (the
// FileStore), never only in the workspace: generated files are stored when the call ends, inputs
// are copies materialized from My Files. So when a session ends the workspace is emptied
// completely (its directories kept: the user's servers may go on running, see clearSessionFiles),
// and when a user is deleted it is removed.
//
// Deletion runs GNU `rm -rf --one-file-system`, not fs.rm: a tool still running (or an earlier
// unsandboxed one) may swap a directory for a symbolic link to /etc between a check and the
// removal, and Node's recursive rm would then follow it as root. rm walks with fts and openat
// (O_NOFOLLOW, device/inode checks on every directory), so a swapped link is removed, not followed.
import { spawn } from 'node:child_process';
import { lstat, readdir, realpath, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { INPUT_DIR_NAME } from '@ferry/contract';
import { SANDBOX_STATE_DIR } from './sandbox-etc.js';
import { assertUsername, realRoot } from './user-workspace.js';

/** What cleanup needs of a workspace (the host's `Workspace` has both). */
export interface WorkspaceRef {
  readonly username: string;
  /** Host path of the workspace. */
  readonly hostDir: string;
}

export interface CleanupResult {
  /**
   * Entries removed at the top of the workspace (files, directories, links); `input_files/` counts
   * as one when it had anything in it (it is emptied, not removed).
   */
  removed: number;
}

/**
 * Empties the workspace, `input_files/`'s content included (re-materialized from My Files on the
 * next call). The workspace and `input_files/` themselves stay: a sandboxed server still running
 * has them bound (input_files/ read-only, on its own), and a bind follows the directory it was
 * made of, so a new `input_files/` would never show in that sandbox and the server would find no
 * input again. A missing workspace is already clean.
 */
export async function clearSessionFiles(workspace: WorkspaceRef): Promise<CleanupResult> {
  assertUsername(workspace.username);
  const dir = workspace.hostDir;
  const stats = await lstat(dir).catch(() => undefined);
  if (!stats) return { removed: 0 };
  if (!stats.isDirectory() || (await realpath(dir)) !== dir) {
    throw new Error(`[ferry/sandbox] ${dir} is not a real directory; refusing to clear it`);
  }
  let removed = 0;
  const inputs = join(dir, INPUT_DIR_NAME);
  const inputStats = await lstat(inputs).catch(() => undefined);
  // Only a real directory is kept; a link (or file) planted in its place goes like anything else.
  const keepInputs = inputStats?.isDirectory() === true;
  if (keepInputs) {
    if ((await readdir(inputs)).length > 0) removed += 1;
    await emptyDirectory(inputs);
  }
  const names = (await readdir(dir)).filter((name) => !(keepInputs && name === INPUT_DIR_NAME));
  await removeEntries(dir, names);
  return { removed: removed + names.length };
}

/**
 * Whether `hostDir` holds nothing a clear would remove: no entry but, at most, an empty
 * `input_files/` (what clearSessionFiles leaves). A missing workspace is cleared too.
 */
export async function isClearedWorkspace(hostDir: string): Promise<boolean> {
  const entries = await readdir(hostDir).catch(() => [] as string[]);
  if (entries.length === 0) return true;
  if (entries.length > 1 || entries[0] !== INPUT_DIR_NAME) return false;
  return (await readdir(join(hostDir, INPUT_DIR_NAME)).catch(() => ['?'])).length === 0;
}

/** Removes `names` in `dir`, in batches, so many entries stay under the argument-length limit. */
async function removeEntries(dir: string, names: readonly string[]): Promise<void> {
  for (let at = 0; at < names.length; at += 500) {
    await removeTree(names.slice(at, at + 500).map((name) => join(dir, name)));
  }
}

/** Removes the user's workspace entirely (user deletion). Returns false when there was none. */
export async function removeUserWorkspace(
  username: string,
  options: { workspacesRoot: string },
): Promise<boolean> {
  const root = await realRoot(options.workspacesRoot);
  const dir = join(root, assertUsername(username));
  // The generated /etc files of the user's sandboxes (the launcher's default stateDir).
  await removeTree([join(root, SANDBOX_STATE_DIR, username)]);
  const stats = await lstat(dir).catch(() => undefined);
  if (!stats) return false;
  // A link in its place goes, its target stays.
  if (!stats.isDirectory()) await unlink(dir);
  else await removeTree([dir]);
  return true;
}

function removeTree(paths: string[]): Promise<void> {
  return run('rm', ['-rf', '--one-file-system', '--', ...paths]);
}

/**
 * Deletes everything inside `dir`, not `dir`. GNU find, for the reason rm is used above: a tool may
 * swap `dir` for a link between the check and the deletion, and `rm dir/x` would then resolve
 * through it; `find -P` does not follow a link given as the starting point (nothing is deleted
 * then) and deletes relative to the directories it opened (fts, O_NOFOLLOW), on this file system only.
 */
function emptyDirectory(dir: string): Promise<void> {
  return run('find', ['-P', dir, '-xdev', '-mindepth', '1', '-delete']);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const rm = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    rm.stderr.setEncoding('utf8');
    rm.stderr.on('data', (text: string) => {
      stderr += text;
    });
    rm.on('error', reject);
    rm.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`[ferry/sandbox] ${command} exited with ${code}: ${stderr.trim()}`));
    });
  });
}
