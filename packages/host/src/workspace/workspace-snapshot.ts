// What the workspace looked like before and after a call, so files a tool wrote without listing
// them still reach My Files (v2.1 §2.2: "Client detects generated files"). Only regular files
// count; symbolic links are never followed (a link to /etc/passwd is not a generated file), and
// `input_files/` is Ferry's own.
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { INPUT_DIR_NAME } from '@ferry/contract';

export interface SnapshotEntry {
  size: bigint;
  /** Nanoseconds, so two writes within one millisecond still differ. */
  mtimeNs: bigint;
  ino: bigint;
}

export interface WorkspaceSnapshot {
  /** Host path → entry, regular files only. */
  files: ReadonlyMap<string, SnapshotEntry>;
  /** The walk stopped at `maxEntries` or `maxDepth`: detection may miss files. */
  truncated: boolean;
}

export interface SnapshotOptions {
  /** Entries (files and directories) visited at most. @default 10000 */
  maxEntries?: number;
  /** Directory levels below the workspace. @default 16 */
  maxDepth?: number;
}

export interface WorkspaceDir {
  subdirs: string[];
  /** Regular files (by their directory entry; a symbolic link is neither this nor a subdir). */
  files: string[];
  /** Entries looked at, at most `limit`. */
  seen: number;
  /** More entries than `limit`: the lists miss some. */
  cut: boolean;
}

/**
 * One directory of a workspace, as both detection methods read it: host paths of its
 * subdirectories and regular files, `input_files/` at the top left out. Undefined when it cannot
 * be read (removed or made unreadable by the tool meanwhile: nothing to detect there).
 */
export async function readWorkspaceDir(
  dir: string,
  depth: number,
  limit = Number.POSITIVE_INFINITY,
): Promise<WorkspaceDir | undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const cut = entries.length > limit;
  if (cut) entries = entries.slice(0, limit);
  const subdirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    if (depth === 0 && entry.name === INPUT_DIR_NAME) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) subdirs.push(path);
    else if (entry.isFile()) files.push(path);
  }
  return { subdirs, files, seen: entries.length, cut };
}

export async function snapshotWorkspace(hostDir: string, options: SnapshotOptions = {}) {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxDepth = options.maxDepth ?? 16;
  const files = new Map<string, SnapshotEntry>();
  let visited = 0;
  let truncated = false;

  const walk = async (dir: string, depth: number): Promise<void> => {
    const listed = await readWorkspaceDir(dir, depth, maxEntries - visited);
    if (!listed) return;
    visited += listed.seen;
    if (listed.cut) truncated = true;
    const { subdirs } = listed;
    // lstat in parallel: the libuv pool overlaps them, which matters with thousands of files.
    await Promise.all(
      listed.files.map(async (path) => {
        try {
          const stats = await lstat(path, { bigint: true });
          if (stats.isFile()) files.set(path, { size: stats.size, mtimeNs: stats.mtimeNs, ino: stats.ino });
        } catch {
          // Gone between readdir and lstat.
        }
      }),
    );
    if (depth + 1 > maxDepth) {
      if (subdirs.length > 0) truncated = true;
      return;
    }
    for (const sub of subdirs) await walk(sub, depth + 1);
  };

  await walk(hostDir, 0);
  return { files, truncated } satisfies WorkspaceSnapshot;
}

/** Host paths of files that are new in `after` or whose size, mtime or inode changed; sorted. */
export function changedFiles(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const changed: string[] = [];
  for (const [path, entry] of after.files) {
    const old = before.files.get(path);
    if (!old || old.size !== entry.size || old.mtimeNs !== entry.mtimeNs || old.ino !== entry.ino) {
      changed.push(path);
    }
  }
  return changed.sort();
}
