// Cleanup of workspaces. Everything a user should keep is in My Files (the
// FileStore), never only in the workspace: generated files are stored when the call ends, inputs
// are copies materialized from My Files. So when a session ends the workspace is emptied
// completely, and when a user is deleted it is removed.
//
// Deletion runs GNU `rm -rf --one-file-system`, not fs.rm: a tool still running (or an earlier
// unsandboxed one) may swap a directory for a symbolic link to /etc between a check and the
// removal, and Node's recursive rm would then follow it as root. rm walks with fts and openat
// (O_NOFOLLOW, device/inode checks on every directory), so a swapped link is removed, not followed.
import { spawn } from 'node:child_process';
import { lstat, readdir, realpath, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDBOX_STATE_DIR } from './sandbox-etc.js';
import { assertUsername, realRoot } from './user-workspace.js';

/** What cleanup needs of a workspace (the host's `Workspace` has both). */
export interface WorkspaceRef {
  readonly username: string;
  /** Host path of the workspace. */
  readonly hostDir: string;
}

export interface CleanupResult {
  /** Entries removed at the top of the workspace (files, directories, links). */
  removed: number;
}

/**
 * Empties the workspace, `input_files/` included (re-materialized from My Files on the next call).
 * A sandboxed server still running keeps its bind of the same, now empty, directory; stop the
 * user's servers first if they must not write again. A missing workspace is already clean.
 */
export async function clearSessionFiles(workspace: WorkspaceRef): Promise<CleanupResult> {
  assertUsername(workspace.username);
  const dir = workspace.hostDir;
  const stats = await lstat(dir).catch(() => undefined);
  if (!stats) return { removed: 0 };
  if (!stats.isDirectory() || (await realpath(dir)) !== dir) {
    throw new Error(`[ferry/sandbox] ${dir} is not a real directory; refusing to clear it`);
  }
  const names = await readdir(dir);
  // In batches, so a workspace with many entries stays under the argument-length limit.
  for (let at = 0; at < names.length; at += 500) {
    await removeTree(names.slice(at, at + 500).map((name) => join(dir, name)));
  }
  return { removed: names.length };
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
  return new Promise((resolve, reject) => {
    const rm = spawn('rm', ['-rf', '--one-file-system', '--', ...paths], {
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
      else reject(new Error(`[ferry/sandbox] rm exited with ${code}: ${stderr.trim()}`));
    });
  });
}
