// Resource limits of one sandboxed server, and how each is enforced:
//
//   limit           mechanism                                    when hit
//   memoryBytes     RLIMIT_DATA (prlimit --data)                 allocation fails (ENOMEM; Node:
//                                                                "Array buffer allocation failed", or
//                                                                a fatal heap OOM that ends it)
//   cpuSeconds      RLIMIT_CPU (prlimit --cpu)                   SIGKILL (soft = hard): the server
//                                                                exits, the pool restarts it
//   openFiles       RLIMIT_NOFILE (prlimit --nofile)             EMFILE
//   processes       pids cgroup (pids.max) when Ferry can create  fork/clone fails with EAGAIN
//                   one, and RLIMIT_NPROC (prlimit --nproc),
//                   which the kernel ignores for host root
//   fileSizeBytes   RLIMIT_FSIZE (prlimit --fsize)               EFBIG (Node ignores SIGXFSZ)
//   tmpBytes        size of the private /tmp tmpfs (bwrap --size) ENOSPC
//   workspaceBytes  `du` of the workspace before each launch     launch refused: E_QUOTA_EXCEEDED;
//                   and every quotaCheckMs while it runs          while running: the server is
//                                                                killed, stderr says why
//
// rlimits apply per process (each child gets its own copy), so memory and CPU are per process, not
// per sandbox; the pids cgroup and the workspace quota are per sandbox. `null` turns a limit off.
//
// Memory is RLIMIT_DATA (writable private memory: heap, buffers, anonymous mappings), not
// RLIMIT_AS: V8 *reserves* ~10 GiB of address space (inaccessible guard regions) per WebAssembly
// memory, so an address-space limit low enough to matter breaks every Node program that uses
// WebAssembly (tsx and es-module-lexer among them), while reserved-but-inaccessible pages do not
// count against RLIMIT_DATA. Pages of the private /tmp (tmpfs) count against tmpBytes instead.

export interface SandboxLimits {
  /** Writable private memory per process (RLIMIT_DATA). @default 4 GiB */
  memoryBytes?: number | null;
  /** CPU seconds per process over its whole life (a pooled server lives across calls). @default 900 */
  cpuSeconds?: number | null;
  /** Open file descriptors per process. @default 1024 */
  openFiles?: number | null;
  /** Tasks (processes and threads: Node alone runs ~10) per sandbox. @default 256 */
  processes?: number | null;
  /** Largest file a process may write or extend (sparse files included). @default 10 GiB */
  fileSizeBytes?: number | null;
  /** Bytes (allocated on disk) the user's workspace may hold. @default 10 GiB */
  workspaceBytes?: number | null;
  /** How often a running server's workspace is measured, in ms. @default 2000 */
  quotaCheckMs?: number;
  /** Size of the private /tmp (memory-backed). @default 256 MiB */
  tmpBytes?: number | null;
}

export type ResolvedLimits = { [K in keyof SandboxLimits]-?: Exclude<SandboxLimits[K], undefined> };

const GIB = 1024 ** 3;

export const DEFAULT_LIMITS: Readonly<ResolvedLimits> = Object.freeze({
  memoryBytes: 4 * GIB,
  cpuSeconds: 900,
  openFiles: 1024,
  processes: 256,
  fileSizeBytes: 10 * GIB,
  workspaceBytes: 10 * GIB,
  quotaCheckMs: 2000,
  tmpBytes: 256 * 1024 ** 2,
});

/** Defaults, then each layer in order; throws on a value that is not a positive integer. */
export function resolveLimits(...layers: (SandboxLimits | undefined)[]): ResolvedLimits {
  const limits: ResolvedLimits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      if (value === undefined) continue;
      if (!(key in DEFAULT_LIMITS)) throw new Error(`[ferry/sandbox] unknown limit "${key}"`);
      if (value !== null && (!Number.isSafeInteger(value) || value <= 0)) {
        throw new Error(`[ferry/sandbox] limit ${key} must be a positive integer or null, got ${value}`);
      }
      if (key === 'quotaCheckMs' && value === null)
        throw new Error('[ferry/sandbox] quotaCheckMs cannot be null');
      (limits as Record<string, number | null>)[key] = value;
    }
  }
  return limits;
}

/** `prlimit` options for the rlimit-backed limits (soft = hard, so the process cannot raise them). */
export function prlimitOptions(limits: ResolvedLimits): string[] {
  const options: string[] = [];
  const add = (flag: string, value: number | null) => {
    if (value !== null) options.push(`--${flag}=${value}`);
  };
  add('data', limits.memoryBytes);
  add('cpu', limits.cpuSeconds);
  add('nofile', limits.openFiles);
  add('nproc', limits.processes);
  add('fsize', limits.fileSizeBytes);
  return options;
}
