// Opens a file a tool names by path (v2.1 artifact `path`, or a file detection found) without
// letting the tool make Ferry read anything outside its workspace (v2.1 §12.2). The order:
//   1. lexical: absolute, no NUL, inside toolDir once `..` is collapsed;
//   2. the real path of the parent directory is inside the real hostDir (catches symlinked dirs);
//   3. lstat: a regular file, not a symlink, FIFO, socket, device or directory;
//   4. open with O_NOFOLLOW|O_NONBLOCK (a FIFO swapped in cannot block us, a symlink cannot be
//      followed), fstat: still a regular file and the same inode as in 3;
//   5. the opened file's own path (/proc/self/fd on Linux, else the parent's realpath again) is
//      still inside hostDir.
// Nothing is read before all five pass. The sandbox issue adds OS-level isolation on top.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  type ErrorEnvelope,
  type FerryErrorCode,
  fileNotFoundError,
  invalidPathError,
} from '@ferry/contract';
import type { Workspace } from './workspaces.js';

export interface OpenedWorkspaceFile {
  toolPath: string;
  hostPath: string;
  size: number;
  /** A stream over the opened file; closes the handle when done. Call at most once. */
  createReadStream(): Readable;
  /** Closes the handle if no stream took it over; safe to call twice. */
  close(): Promise<void>;
}

export type WorkspaceFileResult =
  | { ok: true; file: OpenedWorkspaceFile }
  | {
      ok: false;
      code: Extract<FerryErrorCode, 'E_INVALID_PATH' | 'E_FILE_NOT_FOUND'>;
      /** For logs and the UI; names the path. */
      reason: string;
      error: ErrorEnvelope;
    };

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

export async function resolveWorkspaceFile(
  workspace: Workspace,
  toolPath: unknown,
): Promise<WorkspaceFileResult> {
  const attempted = typeof toolPath === 'string' ? toolPath : String(toolPath);
  const refuse = (reason: string): WorkspaceFileResult => ({
    ok: false,
    code: 'E_INVALID_PATH',
    reason: `${JSON.stringify(attempted)} ${reason}`,
    error: invalidPathError({ attemptedPath: attempted, allowedPrefix: `${workspace.toolDir}/` }),
  });
  const missing = (): WorkspaceFileResult => ({
    ok: false,
    code: 'E_FILE_NOT_FOUND',
    reason: `${JSON.stringify(attempted)} does not exist`,
    error: fileNotFoundError({ name: basename(attempted) }),
  });

  if (typeof toolPath !== 'string' || toolPath === '') return refuse('is not a path');
  if (toolPath.includes('\0')) return refuse('contains a NUL byte');
  if (!toolPath.startsWith('/')) return refuse('is not absolute');
  const hostPath = workspace.toHostPath(toolPath);
  if (hostPath === undefined) return refuse(`is outside ${workspace.toolDir}/`);
  if (hostPath === workspace.hostDir) return refuse('is the workspace itself');

  let parent: string;
  try {
    parent = await realpath(dirname(hostPath));
  } catch {
    return missing();
  }
  if (parent !== workspace.hostDir && !isInside(parent, workspace.hostDir))
    return refuse('leaves the workspace through a symbolic link');
  const target = join(parent, basename(hostPath));

  let before: Stats;
  try {
    before = await lstat(target);
  } catch {
    return missing();
  }
  const kind = describeKind(before);
  if (kind) return refuse(`is ${kind}, not a regular file`);

  let handle: FileHandle;
  try {
    handle = await open(target, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return missing();
    return refuse(code === 'ELOOP' ? 'became a symbolic link' : `could not be opened (${code})`);
  }
  const fail = async (reason: string) => {
    await handle.close().catch(() => undefined);
    return refuse(reason);
  };
  const opened = await handle.stat();
  if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev) {
    return fail('was replaced while it was being opened');
  }
  const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (where !== undefined ? !isInside(where, workspace.hostDir) : !(await sameParent(target, parent))) {
    return fail('was moved outside the workspace while it was being opened');
  }
  return { ok: true, file: wrap(handle, toolPath, target, opened.size) };
}

function wrap(handle: FileHandle, toolPath: string, hostPath: string, size: number): OpenedWorkspaceFile {
  let taken = false;
  let closed = false;
  return {
    toolPath,
    hostPath,
    size,
    createReadStream() {
      if (taken || closed) throw new Error(`[ferry/host] ${hostPath} was already read or closed`);
      taken = true;
      return handle.createReadStream({ start: 0, autoClose: true });
    },
    async close() {
      if (taken || closed) return;
      closed = true;
      await handle.close();
    },
  };
}

function describeKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function isInside(path: string, dir: string): boolean {
  return path.startsWith(`${dir}/`);
}

async function sameParent(target: string, parent: string): Promise<boolean> {
  return (await realpath(dirname(target)).catch(() => '')) === parent;
}
