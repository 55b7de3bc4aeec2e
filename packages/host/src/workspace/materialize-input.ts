// Path mode (DESIGN step 2): a file of My Files becomes a read-only regular file at
// `<workspace>/input_files/<name>`, streamed from the FileStore. Never a symlink into the blob
// store: the tool must not learn where blobs live nor reach other files through a link.
//
// The tool may have tampered with `input_files/` (unsandboxed, it can write there), so the
// directory is checked before each write, the copy is written to a fresh temp file opened with
// O_EXCL|O_NOFOLLOW and renamed into place, and a copy is reused only while its inode and ctime
// are those Ferry left (ctime cannot be set from user space, so any write, chmod or
// replacement shows).
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, rm, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { MaterializeRequest, Workspace } from './workspaces.js';

export interface CachedInput {
  fileId: string;
  ino: bigint;
  ctimeNs: bigint;
  size: bigint;
}

/** Host path → what Ferry last wrote there (per process). */
export type MaterializeCache = Map<string, CachedInput>;

export async function materializeInput(
  workspace: Workspace,
  cache: MaterializeCache,
  request: MaterializeRequest,
): Promise<string> {
  const { name } = request;
  if (name === '' || name === '.' || name === '..' || basename(name) !== name || name.includes('\0')) {
    throw new Error(`[ferry/host] not a single file name: ${JSON.stringify(name)}`);
  }
  await ensureInputDir(workspace);
  const target = join(workspace.inputDir, name);

  const cached = cache.get(target);
  if (cached?.fileId === request.fileId) {
    const current = await lstat(target, { bigint: true }).catch(() => undefined);
    if (
      current?.isFile() &&
      current.ino === cached.ino &&
      current.ctimeNs === cached.ctimeNs &&
      current.size === cached.size
    ) {
      return workspace.toToolPath(target);
    }
  }
  cache.delete(target);

  const temp = join(workspace.inputDir, `.ferry-${randomUUID()}.part`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, 0o600);
  try {
    await checkOpenedInside(handle.fd, workspace.inputDir);
    // Written through the handle (not a path) so the checked file is the one that gets the bytes.
    for await (const chunk of await request.open()) {
      const bytes = chunk as Buffer;
      for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
    }
    const written = await handle.stat();
    if (written.size !== request.size) {
      throw new Error(`[ferry/host] materialized ${written.size} of ${request.size} bytes of ${name}`);
    }
    await handle.chmod(0o444);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await renameOver(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const stats = await lstat(target, { bigint: true });
  cache.set(target, { fileId: request.fileId, ino: stats.ino, ctimeNs: stats.ctimeNs, size: stats.size });
  return workspace.toToolPath(target);
}

/** `input_files/` as a real directory of the workspace, whatever the tool left there. */
async function ensureInputDir(workspace: Workspace): Promise<void> {
  const dir = workspace.inputDir;
  const stats = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stats && !stats.isDirectory()) await rm(dir, { force: true });
  // 0755: the sandbox user (when tools run as one) reads it; the workspace's 0700 keeps others out.
  if (!stats?.isDirectory()) await mkdir(dir, { mode: 0o755 });
  if ((await realpath(dir)) !== dir) {
    throw new Error(`[ferry/host] ${dir} does not resolve to itself; refusing to write there`);
  }
}

/** Renames over an existing file; a directory the tool put in the way is removed first. */
async function renameOver(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    await rm(to, { recursive: true, force: true });
    await rename(from, to);
  }
}

/**
 * On Linux, /proc/self/fd names the file actually opened: if a directory on the way was swapped
 * for a symlink after the checks, this catches it. Elsewhere the realpath check has to do.
 */
async function checkOpenedInside(fd: number, dir: string): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
  if (opened !== undefined && !opened.startsWith(`${dir}/`)) {
    throw new Error(`[ferry/host] temp file opened outside ${dir}: ${opened}`);
  }
}
