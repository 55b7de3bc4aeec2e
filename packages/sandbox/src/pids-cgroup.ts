// A pids cgroup per sandbox, the one limit on process count that holds when Ferry runs as root:
// the kernel does not apply RLIMIT_NPROC to uid 0 of the initial user namespace, and a bwrap
// started by root maps the sandbox to that uid. Children are created *below Ferry's own cgroup*
// (never beside it), so whatever limits the host put on Ferry still apply to its tools.
//   cgroup v1: <pids mount>/<Ferry's pids cgroup>/ferry-sandbox/<id>/pids.max
//   cgroup v2: the same under the unified mount, only when Ferry's cgroup already delegates the
//              pids controller to its children (cgroup.subtree_control lists it)
// A wrapper that is SIGKILLed cannot remove its cgroup; empty leftovers are removed by `sweep`.
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PidsCgroup {
  /** The directory holding one child cgroup per sandbox. */
  readonly base: string;
  readonly version: 1 | 2;
  /** A new child cgroup limited to `max` tasks; its directory. */
  create(max: number): Promise<string>;
  /** Removes empty children of sandboxes that are gone. */
  sweep(): Promise<void>;
}

export type PidsCgroupResult = { ok: true; cgroup: PidsCgroup } | { ok: false; reason: string };

const BASE_NAME = 'ferry-sandbox';
/** A child younger than this may still be waiting for its wrapper to join it. */
const JOIN_GRACE_MS = 60_000;

export async function openPidsCgroup(proc = '/proc'): Promise<PidsCgroupResult> {
  let own: string;
  let mounts: string;
  try {
    own = await readFile(join(proc, 'self/cgroup'), 'utf8');
    mounts = await readFile(join(proc, 'self/mountinfo'), 'utf8');
  } catch (error) {
    return { ok: false, reason: `cannot read the cgroup setup: ${(error as Error).message}` };
  }
  const found = locate(own, mounts);
  if (!found) return { ok: false, reason: 'no writable pids controller (cgroup v1 or delegated v2)' };
  const base = join(found.dir, BASE_NAME);
  try {
    if (found.version === 2) {
      const delegated = await readFile(join(found.dir, 'cgroup.subtree_control'), 'utf8');
      if (!delegated.split(/\s+/).includes('pids')) {
        return { ok: false, reason: `the pids controller is not delegated below ${found.dir}` };
      }
    }
    await mkdir(base, { recursive: true });
    if (found.version === 2) await writeFile(join(base, 'cgroup.subtree_control'), '+pids');
    const cgroup = createPidsCgroup(base, found.version);
    // Proves the hierarchy is writable here (read-only in many containers).
    await rmdir(await cgroup.create(1));
    return { ok: true, cgroup };
  } catch (error) {
    return { ok: false, reason: `cannot create pids cgroups in ${base}: ${(error as Error).message}` };
  }
}

/** Names this process made, with when: shared by every launcher of the process (names must not repeat). */
const created = new Map<string, number>();
let sequence = 0;

function createPidsCgroup(base: string, version: 1 | 2): PidsCgroup {
  return {
    base,
    version,
    async create(max) {
      const name = `${process.pid}-${++sequence}`;
      const dir = join(base, name);
      // Recorded before it exists: a concurrent launch's sweep between the mkdir and the wrapper
      // joining must see a fresh group, not an old empty one of ours (it removed them: ENODEV).
      created.set(name, Date.now());
      try {
        await mkdir(dir);
      } catch (error) {
        created.delete(name);
        throw error;
      }
      try {
        await writeFile(join(dir, 'pids.max'), String(max));
      } catch (error) {
        await rmdir(dir).catch(() => undefined);
        created.delete(name);
        throw error;
      }
      return dir;
    },
    async sweep() {
      const names = await readdir(base).catch(() => [] as string[]);
      const now = Date.now();
      for (const name of names) {
        const owner = Number(name.split('-')[0]);
        if (!Number.isInteger(owner) || owner <= 0) continue;
        if (owner === process.pid) {
          if (now - (created.get(name) ?? 0) < JOIN_GRACE_MS) continue;
        } else if (isAlive(owner)) {
          continue;
        }
        // rmdir fails (EBUSY) while a process is inside: only empty groups go.
        await rmdir(join(base, name)).then(
          () => created.delete(name),
          () => undefined,
        );
      }
    },
  };
}

/** Ferry's pids cgroup directory from /proc/self/cgroup and /proc/self/mountinfo. */
export function locate(own: string, mounts: string): { dir: string; version: 1 | 2 } | undefined {
  const lines = own.split('\n').filter(Boolean);
  const v1 = lines.map((line) => line.split(':')).find((parts) => parts[1]?.split(',').includes('pids'));
  const v2 = lines.map((line) => line.split(':')).find((parts) => parts[0] === '0' && parts[1] === '');
  for (const entry of mounts.split('\n').map(parseMountInfo)) {
    if (!entry) continue;
    if (v1 && entry.fsType === 'cgroup' && entry.superOptions.split(',').includes('pids')) {
      const dir = below(entry, v1.slice(2).join(':'));
      if (dir) return { dir, version: 1 };
    }
  }
  for (const entry of mounts.split('\n').map(parseMountInfo)) {
    if (v2 && entry?.fsType === 'cgroup2') {
      const dir = below(entry, v2.slice(2).join(':'));
      if (dir) return { dir, version: 2 };
    }
  }
  return undefined;
}

interface MountInfo {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string;
}

function parseMountInfo(line: string): MountInfo | undefined {
  const [left, right] = line.split(' - ');
  const fields = left?.split(' ');
  const tail = right?.split(' ');
  if (!fields || !tail || fields.length < 5 || tail.length < 3) return undefined;
  return {
    root: decodeMountField(fields[3] as string),
    mountPoint: decodeMountField(fields[4] as string),
    fsType: tail[0] as string,
    superOptions: tail[2] as string,
  };
}

/** The cgroup `path` as a directory under this mount, when the mount shows it. */
function below(entry: MountInfo, path: string): string | undefined {
  const root = entry.root === '/' ? '' : entry.root;
  if (path !== root && !path.startsWith(`${root}/`)) return undefined;
  const rest = path.slice(root.length).replace(/^\/+|\/+$/g, '');
  return rest === '' ? entry.mountPoint : join(entry.mountPoint, rest);
}

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
