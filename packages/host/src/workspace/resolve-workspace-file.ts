// Opens a file a tool names by path (v2.1 artifact `path`, or a file detection found) without
// letting the tool make Ferry read anything outside its workspace (v2.1 §12.2). The order:
//   1. lexical: absolute, no NUL, inside toolDir once `..` is collapsed;
//   2. the real path of the parent directory is inside the real hostDir (catches symlinked dirs);
//   3. lstat: a regular file, not a symlink, FIFO, socket, device or directory;
//   4. open with O_NOFOLLOW|O_NONBLOCK (a FIFO swapped in cannot block us, a symlink cannot be
//      followed), fstat: still a regular file and the same inode as in 3;
//   5. the opened file's own path (/proc/self/fd on Linux, else the parent's realpath again) is
//      still inside hostDir;
//   6. not hard-linked elsewhere: a second name may be outside the workspace (a tool running
//      unsandboxed can `ln /etc/shadow out.txt`), and no check on this name shows where the others
//      are. The one exception is a link to the user's own input (2 links, the other one in
//      `input_files/`); 3 or more links are refused even then;
//   7. not larger than `maxBytes`; the stream then stops at the size checked here, so a file that
//      grows (or a sparse one extended) after the check cannot push more bytes through.
// Nothing is read before all of them pass. Every refusal is logged with the user. The sandbox
// (packages/sandbox) adds OS-level isolation on top: inside it, links across its mounts fail.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import {
  type ErrorEnvelope,
  FerryError,
  type FerryErrorCode,
  fileNotFoundError,
  fileTooLargeError,
  invalidPathError,
} from '@ferry/contract';
import type { Workspace } from './workspaces.js';

export interface ResolveWorkspaceFileOptions {
  /** Larger files are refused with E_FILE_TOO_LARGE before anything is read. */
  maxBytes?: number;
  /** Receives every refusal (not missing files). @default a line on stderr */
  log?: (refusal: WorkspaceFileRefusal) => void;
}

export interface WorkspaceFileRefusal {
  user: string;
  toolPath: string;
  code: 'E_INVALID_PATH' | 'E_FILE_TOO_LARGE';
  reason: string;
}

export interface OpenedWorkspaceFile {
  toolPath: string;
  hostPath: string;
  size: number;
  /** device:inode:size:mtime of the opened file: the same bytes at the same place, as far as stat can tell. */
  identity: string;
  /** A stream over the opened file; closes the handle when done. Call at most once. */
  createReadStream(): Readable;
  /** Closes the handle if no stream took it over; safe to call twice. */
  close(): Promise<void>;
}

export type WorkspaceFileResult =
  | { ok: true; file: OpenedWorkspaceFile }
  | {
      ok: false;
      code: Extract<FerryErrorCode, 'E_INVALID_PATH' | 'E_FILE_NOT_FOUND' | 'E_FILE_TOO_LARGE'>;
      /** For logs and the UI; names the path. */
      reason: string;
      /** The errno when opening the file failed (e.g. EACCES: the OS refused it). */
      errno?: string;
      error: ErrorEnvelope;
    };

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

export async function resolveWorkspaceFile(
  workspace: Workspace,
  toolPath: unknown,
  options: ResolveWorkspaceFileOptions = {},
): Promise<WorkspaceFileResult> {
  const attempted = typeof toolPath === 'string' ? toolPath : String(toolPath);
  const log = options.log ?? logRefusal;
  const refuse = (reason: string, errno?: string): WorkspaceFileResult => {
    const refusal = { code: 'E_INVALID_PATH' as const, reason: `${JSON.stringify(attempted)} ${reason}` };
    log({ user: workspace.username, toolPath: attempted, ...refusal });
    return {
      ok: false,
      ...refusal,
      ...(errno === undefined ? {} : { errno }),
      error: invalidPathError({ attemptedPath: attempted, allowedPrefix: `${workspace.toolDir}/` }),
    };
  };
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
    return refuse(code === 'ELOOP' ? 'became a symbolic link' : `could not be opened (${code})`, code);
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
  if (opened.nlink > 1 && !(await isLinkedInput(workspace, target, opened))) {
    return fail(`has ${opened.nlink} hard links; another name may lie outside the workspace`);
  }
  if (options.maxBytes !== undefined && opened.size > options.maxBytes) {
    await handle.close().catch(() => undefined);
    const reason = `${JSON.stringify(attempted)} is ${opened.size} bytes; the limit is ${options.maxBytes}`;
    log({ user: workspace.username, toolPath: attempted, code: 'E_FILE_TOO_LARGE', reason });
    return {
      ok: false,
      code: 'E_FILE_TOO_LARGE',
      reason,
      error: fileTooLargeError({ fileSizeBytes: opened.size, currentLimitBytes: options.maxBytes }),
    };
  }
  const identity = `${opened.dev}:${opened.ino}:${opened.size}:${opened.mtimeMs}`;
  return { ok: true, file: wrap(handle, toolPath, target, opened.size, identity) };
}

/** A tool's own hard link to an input Ferry materialized: exactly two names, one in input_files/. */
async function isLinkedInput(workspace: Workspace, target: string, opened: Stats): Promise<boolean> {
  if (opened.nlink !== 2 || isInside(target, workspace.inputDir)) return false;
  const names = await readdir(workspace.inputDir).catch(() => [] as string[]);
  for (const name of names) {
    const input = await lstat(join(workspace.inputDir, name)).catch(() => undefined);
    if (input?.isFile() && input.ino === opened.ino && input.dev === opened.dev) return true;
  }
  return false;
}

function logRefusal(refusal: WorkspaceFileRefusal): void {
  console.warn(
    `[ferry/host] refused a workspace file of user ${refusal.user} (${refusal.code}): ${refusal.reason}`,
  );
}

function wrap(
  handle: FileHandle,
  toolPath: string,
  hostPath: string,
  size: number,
  identity: string,
): OpenedWorkspaceFile {
  let taken = false;
  let closed = false;
  return {
    toolPath,
    hostPath,
    size,
    identity,
    createReadStream() {
      if (taken || closed) throw new Error(`[ferry/host] ${hostPath} was already read or closed`);
      taken = true;
      return readChecked(handle, toolPath, size);
    },
    async close() {
      if (taken || closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/**
 * Exactly the `size` bytes checked at open: the read stops there even if the file grew since, and
 * a file that shrank (fewer bytes than checked) fails the stream instead of storing a torn copy.
 */
function readChecked(handle: FileHandle, toolPath: string, size: number): Readable {
  if (size === 0) {
    void handle.close().catch(() => undefined);
    return Readable.from([], { objectMode: false });
  }
  const source = handle.createReadStream({ start: 0, end: size - 1, autoClose: true });
  async function* counted() {
    let seen = 0;
    for await (const chunk of source) {
      seen += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (seen !== size) {
      // The tool's path, not the host's: this message can reach the UI.
      throw new FerryError('E_INVALID_PATH', `${toolPath} changed while it was being read`, {
        expected_bytes: size,
        read_bytes: seen,
      });
    }
  }
  return Readable.from(counted(), { objectMode: false });
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
