// What every provider operation shares: the scope, the workspace's real directory, the abort
// signal, and the steps from a caller's path to something checked (a resolved workspace path, a
// My Files record, an opened file).
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { INPUT_DIR_NAME } from '@ferry/contract';
import type { FileRecord } from '@ferry/storage';
import {
  type OpenedWorkspaceFile,
  resolveWorkspaceFile,
  type WorkspaceFileResult,
} from '../workspace/resolve-workspace-file.js';
import type { Workspace } from '../workspace/workspaces.js';
import {
  notFound,
  ProviderFailure,
  permissionDenied,
  providerError,
  tooLarge,
} from './provider-op-errors.js';
import { type ProviderWorkspaceRoot, resolveInWorkspace } from './provider-path-resolve.js';
import { checkProviderPolicy, type ProviderPath, parseProviderPath, providerRoot } from './provider-paths.js';
import type { ProviderScope, ProviderValue } from './provider-types.js';

export interface OperationContext {
  readonly scope: ProviderScope;
  /** undefined when the user has no workspace directory yet: only My Files exists then. */
  readonly root: ProviderWorkspaceRoot | undefined;
  readonly signal: AbortSignal;
}

/** What an operation answers, with what the audit line counts. */
export interface OperationOutcome {
  value: ProviderValue;
  /** Bytes of file content read. */
  bytes?: number;
  /** Entries returned. */
  count?: number;
}

export type AcceptedPath = Exclude<ProviderPath, { kind: 'refused' }>;
export type WorkspacePath = Extract<ProviderPath, { kind: 'workspace' }>;

export async function createOperationContext(
  scope: ProviderScope,
  signal: AbortSignal,
): Promise<OperationContext> {
  const realDir = await realpath(scope.workspaceHostDir).catch(() => undefined);
  const root = realDir === undefined ? undefined : { realDir, toolDir: providerRoot(scope.username) };
  return { scope, root, signal };
}

export function acceptPath(context: OperationContext, raw: string): AcceptedPath {
  const parsed = parseProviderPath(context.scope, raw);
  if (parsed.kind === 'refused') throw ProviderFailure.of(parsed.error);
  return parsed;
}

/** A workspace path resolved through its links, checked to stay inside and against the policy. */
export async function resolveWorkspacePath(
  context: OperationContext,
  path: WorkspacePath,
  followLast: boolean,
  what = 'File',
) {
  if (context.root === undefined) throw notFound(path.toolPath, what);
  const resolved = await resolveInWorkspace(context.root, path.relative, followLast);
  if (!resolved.ok) {
    if (resolved.reason === 'missing') throw notFound(path.toolPath, what);
    if (resolved.reason === 'loop')
      throw providerError(`Too many levels of symbolic links: ${path.toolPath}`);
    if (resolved.reason === 'denied') throw permissionDenied(path.toolPath);
    // The link's target is not named: it is outside what the caller may see.
    throw permissionDenied(path.toolPath, 'a symbolic link leads outside the files this provider serves');
  }
  const policy = checkProviderPolicy(context.scope, resolved.toolPath);
  if (policy !== undefined) throw ProviderFailure.of(policy);
  return resolved;
}

/** The newest version of `name` whose newest version has this source (as the listing shows it). */
export async function findMyFile(
  context: OperationContext,
  path: Extract<ProviderPath, { kind: 'my-files-file' }>,
): Promise<FileRecord> {
  const { files, owner } = context.scope;
  const record = await files.stat(owner, { name: path.name }).catch(() => undefined);
  if (record === undefined || record.name !== path.name || record.source !== path.source) {
    throw notFound(path.toolPath);
  }
  return record;
}

/**
 * Opens a resolved workspace file for reading through resolveWorkspaceFile: the lexical, realpath,
 * O_NOFOLLOW and /proc/self/fd checks happen again at open time, so a link or directory swapped
 * in since resolution cannot redirect the read. Nothing is read yet.
 */
export async function openResolvedFile(
  context: OperationContext,
  hostPath: string,
  callerPath: string,
  maxBytes: number | undefined,
): Promise<OpenedWorkspaceFile> {
  const root = context.root;
  if (root === undefined) throw notFound(callerPath);
  const result = await resolveWorkspaceFile(asWorkspace(context.scope.username, root.realDir), hostPath, {
    ...(maxBytes === undefined ? {} : { maxBytes }),
    // The provider's own audit line records the refusal, with the caller's path.
    log: () => undefined,
  });
  if (result.ok) return result.file;
  throw openFailure(result, callerPath, maxBytes);
}

function openFailure(
  result: Extract<WorkspaceFileResult, { ok: false }>,
  callerPath: string,
  maxBytes: number | undefined,
): ProviderFailure {
  if (result.code === 'E_FILE_NOT_FOUND') return notFound(callerPath);
  if (result.code === 'E_FILE_TOO_LARGE') return tooLarge(undefined, maxBytes ?? 0);
  if (result.errno === 'EACCES' || result.errno === 'EPERM') return permissionDenied(callerPath);
  return permissionDenied(callerPath, 'the file changed, or is linked from outside the workspace');
}

/**
 * resolveWorkspaceFile takes a Workspace but uses only these members. Host path = tool path here
 * (the provider maps tool paths itself), so its checks compare real host paths.
 */
function asWorkspace(username: string, realDir: string): Workspace {
  const view: Pick<Workspace, 'username' | 'hostDir' | 'toolDir' | 'inputDir' | 'toHostPath'> = {
    username,
    hostDir: realDir,
    toolDir: realDir,
    inputDir: join(realDir, INPUT_DIR_NAME),
    toHostPath: (path) => (path.startsWith(`${realDir}/`) ? path : undefined),
  };
  return view as Workspace;
}
