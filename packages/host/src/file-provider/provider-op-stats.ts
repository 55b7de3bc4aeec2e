// file_exists and get_file_stats, over the workspace (lstat: a link is reported as a link) and the
// virtual My Files tree (a file's modified_time is when its version was stored).
import { constants, type Stats } from 'node:fs';
import { access, open } from 'node:fs/promises';
import type { FileSource } from '@ferry/contract';
import {
  acceptPath,
  findMyFile,
  type OperationContext,
  type OperationOutcome,
  resolveWorkspacePath,
  type WorkspacePath,
} from './provider-op-context.js';
import { notFound } from './provider-op-errors.js';
import { resolveInWorkspace } from './provider-path-resolve.js';
import { checkProviderPolicy } from './provider-paths.js';
import type { ProviderToolArgs } from './provider-tool-definitions.js';
import type { ProviderFileStats } from './provider-types.js';

const PROBE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY;

/** Never fails: anything refused, invalid, missing or unreadable is simply false. */
export async function fileExists(
  context: OperationContext,
  args: ProviderToolArgs['file_exists'],
): Promise<OperationOutcome> {
  try {
    const path = acceptPath(context, args.path);
    switch (path.kind) {
      case 'my-files-root':
      case 'my-files-dir':
        return { value: true };
      case 'my-files-missing':
        return { value: false };
      case 'my-files-file':
        await findMyFile(context, path);
        return { value: true };
      case 'workspace':
        if (path.relative === '') return { value: true };
        // Followed, like the spec's Path.exists(): a dangling link, or one leading outside, is false.
        await resolveWorkspacePath(context, path, true);
        return { value: true };
    }
  } catch {
    return { value: false };
  }
}

export async function getFileStats(
  context: OperationContext,
  args: ProviderToolArgs['get_file_stats'],
): Promise<OperationOutcome> {
  const path = acceptPath(context, args.path);
  switch (path.kind) {
    case 'my-files-root':
      return { value: directoryStats(path.toolPath, await newestMyFile(context, undefined)) };
    case 'my-files-dir':
      return { value: directoryStats(path.toolPath, await newestMyFile(context, path.source)) };
    case 'my-files-missing':
      throw notFound(path.toolPath, 'Path');
    case 'my-files-file': {
      const record = await findMyFile(context, path);
      const stats: ProviderFileStats = {
        path: path.toolPath,
        file_type: 'file',
        size: record.size,
        modified_time: record.createdAt.toISOString(),
        is_readable: true,
        is_directory: false,
      };
      return { value: stats };
    }
    case 'workspace':
      return { value: await workspaceStats(context, path) };
  }
}

async function workspaceStats(context: OperationContext, path: WorkspacePath): Promise<ProviderFileStats> {
  if (context.root === undefined && path.relative === '') return directoryStats(path.toolPath, undefined);
  const resolved = await resolveWorkspacePath(context, path, false, 'Path');
  const { stats } = resolved;
  if (stats.isSymbolicLink()) {
    // Whether the target is a directory, and readable, is told only for a target the caller may
    // see: a link leading outside reveals nothing of what it points to.
    const root = context.root as NonNullable<typeof context.root>;
    const target = await resolveInWorkspace(root, resolved.toolPath.slice(root.toolDir.length + 1), true);
    const visible = target.ok && checkProviderPolicy(context.scope, target.toolPath) === undefined;
    return {
      path: path.toolPath,
      file_type: 'symlink',
      size: stats.size,
      modified_time: stats.mtime.toISOString(),
      is_readable: visible && (await isReadable(target.hostPath, target.stats)),
      is_directory: visible && target.stats.isDirectory(),
    };
  }
  const isDirectory = stats.isDirectory();
  return {
    path: path.toolPath,
    file_type: isDirectory ? 'directory' : 'file',
    size: stats.size,
    modified_time: stats.mtime.toISOString(),
    is_readable: await isReadable(resolved.hostPath, stats),
    is_directory: isDirectory,
  };
}

function directoryStats(path: string, modified: Date | undefined): ProviderFileStats {
  return {
    path,
    file_type: 'directory',
    size: 0,
    // A virtual directory has no time of its own: its newest file's, or the epoch when empty.
    modified_time: (modified ?? new Date(0)).toISOString(),
    is_readable: true,
    is_directory: true,
  };
}

async function newestMyFile(
  context: OperationContext,
  source: FileSource | undefined,
): Promise<Date | undefined> {
  const { files, owner } = context.scope;
  const page = await files.list(owner, {
    ...(source ? { source } : {}),
    sort: 'created',
    order: 'desc',
    limit: 1,
  });
  return page.items[0]?.createdAt;
}

/**
 * Whether Ferry can open it for reading. Files and directories are probed by opening them (the
 * effective uid decides, as for the real read; access(2) asks about the real uid); anything else
 * (FIFO, socket, device) only through access(2), since opening one may have effects.
 */
async function isReadable(hostPath: string, stats: Stats): Promise<boolean> {
  if (!stats.isFile() && !stats.isDirectory()) {
    return access(hostPath, constants.R_OK).then(
      () => true,
      () => false,
    );
  }
  const handle = await open(hostPath, PROBE_FLAGS).catch(() => undefined);
  await handle?.close().catch(() => undefined);
  return handle !== undefined;
}
