// The startup capability probe: runs bubblewrap once with exactly the options a launch uses (user,
// pid + new /proc, net namespaces, tmpfs sizes, binds), because "bwrap is installed" says nothing about whether
// this kernel, container or AppArmor profile lets it create them. Also finds prlimit (util-linux),
// which applies the rlimits, and whether a pids cgroup can be made for the process limit.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { bwrapArguments } from './bwrap-arguments.js';
import type { SandboxMode } from './launch-spec.js';
import { openPidsCgroup, type PidsCgroup } from './pids-cgroup.js';

export interface SandboxProbe {
  /** The configured mode. */
  mode: SandboxMode;
  /** bubblewrap ran and created every namespace a launch needs. */
  available: boolean;
  /** e.g. "0.8.0". */
  bwrapVersion?: string;
  /** Why the sandbox is unavailable (bwrap's own message where there is one). */
  reason?: string;
  /**
   * What local servers get: `sandboxed`; `unsandboxed` (mode off, or auto without bubblewrap);
   * `refused` (mode required without bubblewrap: every local server fails with E_SANDBOX_UNAVAILABLE).
   */
  effectiveMode: 'sandboxed' | 'unsandboxed' | 'refused';
  /** Where tools see the workspaces: '/tmp' when sandboxed, the host path (undefined) otherwise. */
  toolRoot?: string;
  /** How resource limits are applied. */
  limits: {
    /** Absolute path of prlimit; without it no rlimit (memory, CPU, files, file size) applies. */
    prlimit?: string;
    /** pids cgroup; rlimit (RLIMIT_NPROC, not enforced for root); none. */
    processes: 'cgroup' | 'rlimit' | 'none';
    /** Why the process count is not limited by a cgroup. */
    processesReason?: string;
  };
  /** A message for logs and a UI banner whenever tools are not fully isolated. */
  warning?: string;
}

export interface ProbeOptions {
  /** @default 'auto' */
  mode?: SandboxMode;
  /** @default 'bwrap' (looked up in PATH) */
  bwrapPath?: string;
  /** @default 10000 */
  timeoutMs?: number;
}

/** The probe plus what a launcher needs from it. */
export interface ProbeResult {
  probe: SandboxProbe;
  bwrapPath?: string;
  cgroup?: PidsCgroup;
}

/** Runs the probe; never throws (an unusable sandbox is a result, not an error). */
export async function probeSandbox(options: ProbeOptions = {}): Promise<SandboxProbe> {
  return (await runProbe(options)).probe;
}

export async function runProbe(options: ProbeOptions = {}): Promise<ProbeResult> {
  const mode = options.mode ?? 'auto';
  const timeout = options.timeoutMs ?? 10_000;
  const bwrapPath = await findExecutable(options.bwrapPath ?? 'bwrap');
  const prlimit = await findExecutable('prlimit');
  const cgroup = await openPidsCgroup();
  const limits: SandboxProbe['limits'] = {
    ...(prlimit ? { prlimit } : {}),
    processes: cgroup.ok ? 'cgroup' : process.getuid?.() === 0 ? 'none' : 'rlimit',
    ...(cgroup.ok ? {} : { processesReason: cgroup.reason }),
  };

  let available = false;
  let reason: string | undefined;
  let bwrapVersion: string | undefined;
  if (!bwrapPath) {
    reason = `${options.bwrapPath ?? 'bwrap'} was not found (install the bubblewrap package)`;
  } else {
    const version = await run(bwrapPath, ['--version'], timeout);
    bwrapVersion = /bubblewrap\s+(\S+)/.exec(version.stdout)?.[1];
    const trial = await tryLaunch(bwrapPath, timeout);
    available = trial.ok;
    if (!trial.ok) reason = `bubblewrap cannot create its namespaces here: ${trial.error}`;
    else if (!prlimit) {
      available = false;
      reason = 'prlimit (util-linux) was not found, so no resource limit could be applied';
    }
  }

  const effectiveMode =
    mode === 'off'
      ? 'unsandboxed'
      : available
        ? 'sandboxed'
        : mode === 'required'
          ? 'refused'
          : 'unsandboxed';
  const probe: SandboxProbe = {
    mode,
    available,
    ...(bwrapVersion ? { bwrapVersion } : {}),
    ...(reason ? { reason } : {}),
    effectiveMode,
    ...(effectiveMode === 'sandboxed' ? { toolRoot: '/tmp' } : {}),
    limits,
  };
  const warning = warningFor(probe);
  if (warning) probe.warning = warning;
  return {
    probe,
    ...(bwrapPath ? { bwrapPath } : {}),
    ...(cgroup.ok && available ? { cgroup: cgroup.cgroup } : {}),
  };
}

function warningFor(probe: SandboxProbe): string | undefined {
  if (probe.effectiveMode === 'unsandboxed') {
    const why = probe.mode === 'off' ? 'the sandbox is turned off (sandbox: "off")' : probe.reason;
    return `Local MCP servers run WITHOUT a sandbox: they can read and write everything Ferry can, including other users' files. Cause: ${why}. Fix: install bubblewrap and allow user namespaces; set sandbox: "required" to refuse unsandboxed servers instead.`;
  }
  if (probe.effectiveMode === 'refused') {
    return `Local MCP servers cannot start: sandbox: "required" but ${probe.reason}.`;
  }
  if (probe.limits.processes === 'none') {
    return `The number of processes per sandbox is not limited (a fork bomb could exhaust the host): ${probe.limits.processesReason}; RLIMIT_NPROC does not apply to root. Run Ferry as a non-root user or give it a writable pids cgroup.`;
  }
  return undefined;
}

/** A launch's exact bwrap options (bwrap-arguments.ts) around `true`, on a throwaway workspace. */
async function tryLaunch(bwrapPath: string, timeout: number): Promise<{ ok: boolean; error: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-probe-'));
  try {
    await mkdir(join(dir, 'input_files'));
    const { options, command } = bwrapArguments({
      username: 'probe',
      hostDir: dir,
      inputDir: join(dir, 'input_files'),
      network: false,
      hiddenDirs: [],
      hiddenFiles: [],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cwd: '/',
      uid: 65534,
      gid: 65534,
      tmpBytes: 1024 * 1024,
      command: 'true',
      args: [],
    });
    return await run(bwrapPath, [...options, '--', ...command], timeout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `name` itself when it is a path, else the first executable of that name in PATH. */
export async function findExecutable(name: string): Promise<string | undefined> {
  const candidates =
    isAbsolute(name) || name.includes('/')
      ? [name]
      : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

function run(
  command: string,
  args: string[],
  timeout: number,
): Promise<{ ok: boolean; stdout: string; error: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (error, stdout, stderr) => {
        const message = stderr.trim() || (error ? error.message : '');
        resolve({ ok: !error, stdout, error: message.split('\n').slice(0, 3).join(' ') });
      },
    );
  });
}
