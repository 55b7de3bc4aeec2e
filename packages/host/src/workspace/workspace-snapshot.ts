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

export async function snapshotWorkspace(hostDir: string, options: SnapshotOptions = {}) {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxDepth = options.maxDepth ?? 16;
  const files = new Map<string, SnapshotEntry>();
  let visited = 0;
  let truncated = false;

  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      // Removed or made unreadable by the tool while we walk: nothing to detect there.
      return;
    }
    const subdirs: string[] = [];
    const regular: string[] = [];
    for (const entry of entries) {
      if (++visited > maxEntries) {
        truncated = true;
        break;
      }
      if (depth === 0 && entry.name === INPUT_DIR_NAME) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) subdirs.push(path);
      else if (entry.isFile()) regular.push(path);
    }
    // lstat in parallel: the libuv pool overlaps them, which matters with thousands of files.
    await Promise.all(
      regular.map(async (path) => {
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
