// Resolves a workspace path component by component, following symbolic links by hand so that
// nothing outside the workspace is ever stat'ed: a link whose target leaves the workspace is
// refused before the target is looked at (so a caller cannot even learn whether it exists).
// This is a check, not a guard against races: reads then go through resolveWorkspaceFile
// (O_NOFOLLOW + /proc/self/fd) and listings through openCheckedDirectory, which verify where the
// opened descriptor really is.
import type { Stats } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { MY_FILES_DIR_NAME } from './provider-paths.js';

/** The workspace as the host has it (`realDir`, a real path) and as tools see it (`toolDir`). */
export interface ProviderWorkspaceRoot {
  readonly realDir: string;
  readonly toolDir: string;
}

export type WorkspaceResolution =
  | {
      ok: true;
      /** Real host path (no symbolic link on the way, except the last component when not followed). */
      hostPath: string;
      /** The same, as tools see it: what policy checks and listings use. */
      toolPath: string;
      /** lstat of the last component. */
      stats: Stats;
    }
  | { ok: false; reason: 'missing' | 'outside' | 'loop' | 'denied' };

/** Linux's own limit (MAXSYMLINKS). */
const MAX_LINK_HOPS = 40;

/**
 * `relative`: a normalized path below the workspace ('' for the root itself). `followLast`: resolve
 * a link in the last component too (reads, listings) or stop at it (get_file_stats' lstat).
 * A path that reaches the real `my_files` directory is missing: My Files shadows it.
 */
export async function resolveInWorkspace(
  root: ProviderWorkspaceRoot,
  relative: string,
  followLast: boolean,
): Promise<WorkspaceResolution> {
  const current: string[] = [];
  const queue = relative === '' ? [] : relative.split('/');
  let stats: Stats | undefined;
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      // Only link targets bring `..` (parseProviderPath refuses it); it climbs real directories.
      if (current.length === 0) return { ok: false, reason: 'outside' };
      current.pop();
      stats = undefined;
      continue;
    }
    const candidate = join(root.realDir, ...current, part);
    let found: Stats;
    try {
      found = await lstat(candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { ok: false, reason: code === 'EACCES' || code === 'EPERM' ? 'denied' : 'missing' };
    }
    const last = queue.length === 0;
    if (found.isSymbolicLink() && (!last || followLast)) {
      if (++hops > MAX_LINK_HOPS) return { ok: false, reason: 'loop' };
      const target = await readlink(candidate).catch(() => undefined);
      if (target === undefined) return { ok: false, reason: 'missing' };
      if (target.startsWith('/')) {
        // An absolute target must name the workspace's real directory textually; its `..`
        // segments are then climbed like any other, so `<root>/../elsewhere` is refused too.
        if (target !== root.realDir && !target.startsWith(`${root.realDir}/`))
          return { ok: false, reason: 'outside' };
        current.length = 0;
        queue.unshift(...target.slice(root.realDir.length).split('/'));
      } else {
        queue.unshift(...target.split('/'));
      }
      stats = undefined;
      continue;
    }
    if (!last && !found.isDirectory()) return { ok: false, reason: 'missing' };
    current.push(part);
    stats = found;
  }
  if (current[0] === MY_FILES_DIR_NAME) return { ok: false, reason: 'missing' };
  const hostPath = join(root.realDir, ...current);
  stats ??= await lstat(hostPath).catch(() => undefined);
  if (stats === undefined) return { ok: false, reason: 'missing' };
  const toolPath = current.length === 0 ? root.toolDir : `${root.toolDir}/${current.join('/')}`;
  return { ok: true, hostPath, toolPath, stats };
}
