// Per-user workspaces: the directory a tool writes into (v2.1 §5: `/tmp/{username}/`) and where
// Ferry materializes input files (`input_files/`). Two views of one directory: `hostDir` is where
// it lives on the host, `toolDir` the path the tool sees. Unsandboxed they are equal; the sandbox
// binds hostDir at /tmp/<username> and passes `toolRoot: '/tmp'`.
import { type BigIntStats, lstatSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { collapsePosixPath, FerryError, INPUT_DIR_NAME, isValidUsername } from '@ferry/contract';
import type { DetectionWindow } from './detection-window.js';
import { type MaterializeCache, materializeInput } from './materialize-input.js';
import { directoryIdentity } from './watched-tree.js';
import {
  createWorkspaceDetection,
  type DetectionOptions,
  type WorkspaceDetection,
} from './workspace-detection.js';
import { type SnapshotOptions, snapshotWorkspace, type WorkspaceSnapshot } from './workspace-snapshot.js';

export interface WorkspacesOptions {
  /** Host directory holding one directory per user; created (0700) when missing. */
  root: string;
  /**
   * Where the tool sees the workspaces: `<toolRoot>/<username>`. Omit when tools run unsandboxed
   * (they see the host paths). The sandbox sets '/tmp'.
   */
  toolRoot?: string;
  /**
   * Who owns each user's directory: the sandbox user when Ferry runs as root and tools run as an
   * unprivileged host uid (the sandbox launcher's `workspaceOwner`). @default Ferry itself
   */
  owner?: () => Promise<WorkspaceOwner | undefined>;
  /** Bounds of the detection walk (and of the change tracker). */
  snapshot?: SnapshotOptions;
  /** How files written during a call are found: a change tracker per workspace by default. */
  detection?: DetectionOptions;
}

export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

export interface MaterializeRequest {
  /** A normalized file name (one path component): the file lands at `input_files/<name>`. */
  name: string;
  /** The My Files id of this version; an unchanged copy from an earlier call is reused. */
  fileId: string;
  size: number;
  open(): Promise<Readable>;
}

export interface Workspace {
  readonly username: string;
  /** Real path on the host, mode 0700. */
  readonly hostDir: string;
  /** The same directory as the tool sees it. */
  readonly toolDir: string;
  /** Host path of `input_files/`. */
  readonly inputDir: string;
  /** Host path inside hostDir → tool path. Throws for a path outside (programmer error). */
  toToolPath(hostPath: string): string;
  /** Tool path → host path, lexically (`..` collapsed); undefined when outside toolDir. */
  toHostPath(toolPath: string): string | undefined;
  /** Regular files outside `input_files/` with size, mtime and inode, for detection. */
  snapshot(): Promise<WorkspaceSnapshot>;
  /**
   * Opens a detection window before a call; its `finish()` after the call lists the files created
   * or changed meanwhile. Cheap with the change tracker; a walk on a user's first call.
   */
  startDetection(): Promise<DetectionWindow>;
  /**
   * Records that a call takes the file at `hostPath` as it is now (`identity`). false when another
   * call already took exactly that: two overlapping calls of one user both see each other's new
   * files in the workspace, and a file must not be stored twice because of it.
   */
  claimOutput(hostPath: string, identity: string): boolean;
  /** Writes a read-only (0444) copy into `input_files/` and returns its tool path. */
  materializeInput(request: MaterializeRequest): Promise<string>;
}

export interface Workspaces {
  /** Creates the user's workspace on first use. Throws E_INVALID_INPUT for an invalid username. */
  forUser(username: string): Promise<Workspace>;
  /** Stops every change tracker (their watches) and removes the sync directory; safe to call twice. */
  close(): Promise<void>;
}

export function createWorkspaces(options: WorkspacesOptions): Workspaces {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw new Error('[ferry/host] [workspaces] option "root" is required');
  }
  const root = resolve(options.root);
  const toolRoot = options.toolRoot === undefined ? undefined : collapsePosixPath(options.toolRoot);
  const cache: MaterializeCache = new Map();
  /** Per user: host path → identity of the file a call took from the workspace. */
  const claims = new Map<string, Map<string, string>>();
  let realRoot: Promise<string> | undefined;

  const ensureRoot = () => {
    realRoot ??= mkdir(root, { recursive: true, mode: 0o700 })
      .then(() => realpath(root))
      .catch((error: unknown) => {
        // Not cached: the next call tries again (a full disk or a missing mount may be fixed).
        realRoot = undefined;
        throw error;
      });
    return realRoot;
  };
  const detection = createWorkspaceDetection({
    root: ensureRoot,
    ...(options.snapshot ? { snapshot: options.snapshot } : {}),
    ...(options.detection ? { options: options.detection } : {}),
  });

  return {
    async forUser(username) {
      if (!isValidUsername(username)) {
        throw new FerryError('E_INVALID_INPUT', `Invalid username: ${JSON.stringify(username)}`, {
          field: 'username',
        });
      }
      const hostDir = join(await ensureRoot(), username);
      const owner = await options.owner?.();
      const rootId = readyPrivateDir(hostDir, owner) ?? (await ensurePrivateDir(hostDir, owner));
      const toolDir = toolRoot === undefined ? hostDir : join(toolRoot, username);
      return createWorkspace({
        username,
        hostDir,
        toolDir,
        cache,
        claims: claimsOf(claims, username),
        snapshot: options.snapshot,
        rootId,
        detection,
      });
    },
    close: () => detection.close(),
  };
}

/**
 * The identity of `dir` when it already is what ensurePrivateDir makes of it (a real directory,
 * mode 0700, owned as expected); undefined when anything needs doing or checking. Every call asks
 * for its user's workspace, and one synchronous lstat (microseconds) answers the usual case where
 * mkdir + lstat through the thread pool cost two round trips.
 */
function readyPrivateDir(dir: string, owner: WorkspaceOwner | undefined): string | undefined {
  let stats: BigIntStats | undefined;
  try {
    stats = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined; // the slow path meets the error again and reports it
  }
  if (stats === undefined || !stats.isDirectory() || (stats.mode & 0o777n) !== 0o700n) return undefined;
  const expected = owner?.uid ?? process.getuid?.();
  if (expected !== undefined && stats.uid !== BigInt(expected)) return undefined;
  return directoryIdentity(stats);
}

/**
 * Creates `dir` with mode 0700, or checks an existing one is a real directory of ours (or of the
 * sandbox user, `owner`) and tightens it. Returns its identity: detection notices a workspace
 * removed and made again by it.
 */
async function ensurePrivateDir(dir: string, owner: WorkspaceOwner | undefined): Promise<string> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let stats = await lstat(dir, { bigint: true });
  const ferry = process.getuid?.();
  const expected = owner?.uid ?? ferry;
  if (!stats.isDirectory()) {
    // A symlink here would redirect every write Ferry makes.
    throw new FerryError('E_INTERNAL', `Workspace ${dir} is not a directory`, {});
  }
  if (expected !== undefined && stats.uid !== BigInt(expected)) {
    // Made by Ferry before the sandbox user took it over: hand it over. Anyone else's: refuse.
    if (owner === undefined || ferry === undefined || stats.uid !== BigInt(ferry)) {
      throw new FerryError('E_INTERNAL', `Workspace ${dir} belongs to uid ${stats.uid}, not ${expected}`, {});
    }
    await chown(dir, owner.uid, owner.gid);
    stats = await lstat(dir, { bigint: true });
  }
  if ((stats.mode & 0o777n) !== 0o700n) await chmod(dir, 0o700);
  return directoryIdentity(stats);
}

function createWorkspace(init: {
  username: string;
  hostDir: string;
  toolDir: string;
  cache: MaterializeCache;
  claims: Map<string, string>;
  snapshot: SnapshotOptions | undefined;
  rootId: string;
  detection: WorkspaceDetection;
}): Workspace {
  const { username, hostDir, toolDir, cache } = init;
  const inputDir = join(hostDir, INPUT_DIR_NAME);
  const workspace: Workspace = {
    username,
    hostDir,
    toolDir,
    inputDir,
    toToolPath(hostPath) {
      const rest = relativeInside(hostDir, hostPath);
      if (rest === undefined) throw new Error(`[ferry/host] ${hostPath} is outside the workspace ${hostDir}`);
      return rest === '' ? toolDir : `${toolDir}/${rest}`;
    },
    toHostPath(toolPath) {
      if (typeof toolPath !== 'string' || !toolPath.startsWith('/') || toolPath.includes('\0'))
        return undefined;
      const rest = relativeInside(toolDir, collapsePosixPath(toolPath));
      if (rest === undefined) return undefined;
      return rest === '' ? hostDir : join(hostDir, rest);
    },
    snapshot: () => snapshotWorkspace(hostDir, init.snapshot),
    startDetection: () => init.detection.start({ username, hostDir, rootId: init.rootId }),
    materializeInput: (request) => materializeInput(workspace, cache, request),
    claimOutput(hostPath, identity) {
      const { claims } = init;
      if (claims.get(hostPath) === identity) return false;
      claims.delete(hostPath);
      claims.set(hostPath, identity);
      // Only overlapping calls need this memory: keep the newest claims.
      if (claims.size > MAX_CLAIMS_PER_USER) claims.delete(claims.keys().next().value as string);
      return true;
    },
  };
  return workspace;
}

const MAX_CLAIMS_PER_USER = 2000;

function claimsOf(all: Map<string, Map<string, string>>, username: string): Map<string, string> {
  let claims = all.get(username);
  if (claims === undefined) {
    claims = new Map();
    all.set(username, claims);
  }
  return claims;
}

/** `path` relative to `dir` ('' for dir itself) when inside it, else undefined. Both collapsed. */
function relativeInside(dir: string, path: string): string | undefined {
  if (path === dir) return '';
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}
