// The startup capability probe: runs bubblewrap once with exactly the plan a launch uses (the
// allow-list of system paths, the identity, pid/net/mount namespaces, the read-only private /tmp,
// tmpfs sizes), because "bwrap is installed" says nothing about whether this kernel, container or
// AppArmor profile lets it create them, and checks from inside that the tool is who and where it
// should be (never root, no capabilities, only the listed top-level directories). Also finds
// prlimit and setpriv (util-linux), the network helpers, and whether a pids cgroup can be made.
import { execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INPUT_DIR_NAME, type SandboxMode } from '@ferry/contract';
import { bwrapArguments, identityPlan } from './bwrap-arguments.js';
import { openPidsCgroup, type PidsCgroup } from './pids-cgroup.js';
import { findExecutable } from './program-paths.js';
import { writeSandboxEtc } from './sandbox-etc.js';
import { type RunAs, resolveSandboxIdentity, type SandboxIdentity } from './sandbox-identity.js';
import { findNetworkHelpers, type NetworkHelpers } from './sandbox-network.js';
import {
  ETC_ENTRIES,
  NETWORK_ETC_ENTRIES,
  SYSTEM_DIRS,
  type SystemMount,
  systemMounts,
} from './system-paths.js';

export interface SandboxProbe {
  /** The configured mode. */
  mode: SandboxMode;
  /** bubblewrap ran the launch plan and the tool inside was what the plan says. */
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
  /** Where tools see the workspaces: always '/tmp' (sandboxed, or through a link when not). */
  toolRoot?: string;
  /** The host user tools run as: `setpriv` (Ferry is root) or `userns` (mapped to Ferry's uid). */
  runsAs?: { uid: number; gid: number; name: string; how: 'setpriv' | 'userns' };
  /** What the probe's tool saw: the top level of its root, and its uid. */
  sees?: { root: string[]; uid: number };
  /** `"network": true`: an isolated user-mode stack, or why there is none. */
  network: { available: boolean; helper?: string; reason?: string };
  /** How resource limits are applied. */
  limits: {
    /** Absolute path of prlimit; without it no rlimit (memory, CPU, files, file size) applies. */
    prlimit?: string;
    /** pids cgroup per sandbox; rlimit (RLIMIT_NPROC, per host uid: shared by every sandbox). */
    processes: 'cgroup' | 'rlimit';
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
  /** As whom tools run (Ferry as root). @default the system user ferry-sandbox, else nobody */
  runAs?: RunAs;
  /** @default 10000 */
  timeoutMs?: number;
}

/** The probe plus what a launcher needs from it. */
export interface ProbeResult {
  probe: SandboxProbe;
  bwrapPath?: string;
  cgroup?: PidsCgroup;
  identity?: SandboxIdentity;
  setprivPath?: string;
  /** Whether a launch runs the sandbox user's own bwrap to close nested user namespaces. */
  innerBwrap: boolean;
  /** What every sandbox binds of the system (system-paths.ts), looked up once. */
  system: SystemMount[];
  networkSystem: SystemMount[];
  network: { helpers?: NetworkHelpers; reason?: string };
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
  const setprivPath = await findExecutable('setpriv');
  const cgroup = await openPidsCgroup();
  const system = await systemMounts([...SYSTEM_DIRS, ...ETC_ENTRIES]);
  const networkSystem = await systemMounts(NETWORK_ETC_ENTRIES);
  const network = await findNetworkHelpers();
  const limits: SandboxProbe['limits'] = {
    ...(prlimit ? { prlimit } : {}),
    processes: cgroup.ok ? 'cgroup' : 'rlimit',
    ...(cgroup.ok ? {} : { processesReason: cgroup.reason }),
  };

  let available = false;
  let reason: string | undefined;
  let bwrapVersion: string | undefined;
  let identity: SandboxIdentity | undefined;
  let sees: SandboxProbe['sees'];
  let innerBwrap = true;
  try {
    identity = await resolveSandboxIdentity(options.runAs);
  } catch (error) {
    reason = (error as Error).message.replace(/^\[ferry\/sandbox\] /, '');
  }
  if (reason !== undefined) {
    // runAs is wrong: nothing is tried.
  } else if (!bwrapPath) {
    reason = `${options.bwrapPath ?? 'bwrap'} was not found (install the bubblewrap package)`;
  } else if (!prlimit) {
    reason = 'prlimit (util-linux) was not found, so no resource limit could be applied';
  } else if (identity?.kind === 'setpriv' && !setprivPath) {
    reason = 'setpriv (util-linux) was not found, so tools could not run as an unprivileged user';
  } else if (identity) {
    const version = await run(bwrapPath, ['--version'], timeout);
    bwrapVersion = /bubblewrap\s+(\S+)/.exec(version.stdout)?.[1];
    // As root the sandbox user's own bwrap closes nested user namespaces; where the kernel does
    // not let that user make one at all, there is nothing to close and it runs without.
    let trial = await tryLaunch(bwrapPath, { identity, setprivPath, system, prlimit, inner: true }, timeout);
    if (!trial.ok && identity.kind === 'setpriv') {
      const plain = await tryLaunch(
        bwrapPath,
        { identity, setprivPath, system, prlimit, inner: false },
        timeout,
      );
      if (plain.ok) {
        innerBwrap = false;
        trial = plain;
      }
    }
    if (trial.ok) {
      available = true;
      sees = trial.sees;
    } else {
      reason = trial.error;
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
    ...(identity && available
      ? { runsAs: { uid: identity.uid, gid: identity.gid, name: identity.name, how: identity.kind } }
      : {}),
    ...(sees ? { sees } : {}),
    network: network.helpers
      ? { available: true, helper: 'slirp4netns' }
      : { available: false, reason: network.reason ?? 'no user-mode network stack' },
    limits,
  };
  const warning = warningFor(probe);
  if (warning) probe.warning = warning;
  return {
    probe,
    ...(bwrapPath ? { bwrapPath } : {}),
    ...(cgroup.ok && available ? { cgroup: cgroup.cgroup } : {}),
    ...(identity ? { identity } : {}),
    ...(setprivPath ? { setprivPath } : {}),
    innerBwrap: available && identity?.kind === 'setpriv' && innerBwrap,
    system,
    networkSystem,
    network,
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
  const notes: string[] = [];
  if (probe.limits.processes !== 'cgroup') {
    notes.push(
      `the number of processes is limited per host uid (RLIMIT_NPROC, shared by every sandbox), not per sandbox: ${probe.limits.processesReason}. Give Ferry a writable pids cgroup (cgroup v2 delegation) to limit each sandbox`,
    );
  }
  if (!probe.network.available) {
    notes.push(`servers with "network": true get no network: ${probe.network.reason} (install slirp4netns)`);
  }
  if (notes.length > 0) return `Sandbox: ${notes.join('; ')}.`;
  return undefined;
}

/**
 * A launch's exact plan (bwrap-arguments.ts: the allow-list, the identity, the private /tmp) on a
 * throwaway workspace, running a shell that reports what it sees: its uid and capabilities, the
 * top level of its root, and whether /tmp outside its workspace is writable. The sandbox counts as
 * available only when that is what the plan says: never root, no capabilities, /tmp read-only.
 */
async function tryLaunch(
  bwrapPath: string,
  parts: {
    identity: SandboxIdentity;
    setprivPath: string | undefined;
    system: SystemMount[];
    prlimit: string;
    inner: boolean;
  },
  timeout: number,
): Promise<{ ok: true; sees: NonNullable<SandboxProbe['sees']> } | { ok: false; error: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-probe-'));
  const { identity } = parts;
  try {
    const hostDir = join(dir, 'probe');
    await mkdir(join(hostDir, INPUT_DIR_NAME), { recursive: true });
    if (identity.kind === 'setpriv') await chown(hostDir, identity.uid, identity.gid);
    const etc = await writeSandboxEtc(join(dir, 'etc'), 'probe', identity);
    const { options, command } = bwrapArguments({
      username: 'probe',
      hostDir,
      inputDir: join(hostDir, INPUT_DIR_NAME),
      network: false,
      system: parts.system,
      etc,
      programRoots: [],
      binds: [],
      masks: { dirs: [], files: [] },
      env: { PATH: '/usr/bin:/bin' },
      cwd: '/tmp/probe',
      identity: identityPlan(identity, {
        setprivPath: parts.setprivPath,
        innerBwrap: parts.inner ? bwrapPath : undefined,
      }),
      tmpBytes: 1024 * 1024,
      prlimit: { path: parts.prlimit, options: [] },
      command: '/bin/sh',
      args: ['-c', PROBE_SCRIPT],
    });
    const ran = await run(bwrapPath, [...options, '--', ...command], timeout);
    if (!ran.ok) return { ok: false, error: `bubblewrap cannot create the sandbox here: ${ran.error}` };
    const [uid, capabilities, top, tmp, workspace, userns] = ran.stdout.split('\n');
    const problems = [
      Number(uid) === identity.uid && Number(uid) !== 0
        ? ''
        : `the tool ran as uid ${uid}, not ${identity.uid}`,
      /^0+$/.test(capabilities ?? '') ? '' : `the tool kept capabilities (${capabilities})`,
      tmp === 'tmp-ro' ? '' : '/tmp outside the workspace was writable',
      workspace === 'workspace-rw' ? '' : 'the workspace was not writable',
      userns === 'userns-closed' ? '' : 'the tool could make a user namespace of its own',
    ].filter(Boolean);
    if (problems.length > 0) {
      return {
        ok: false,
        error: `the sandbox is not what it should be: ${problems.join('; ')} (${ran.error})`,
      };
    }
    return { ok: true, sees: { root: (top ?? '').split(' ').filter(Boolean), uid: Number(uid) } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const PROBE_SCRIPT = `id -u
sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status
echo $(ls -A /)
(echo x > /tmp/x) 2>/dev/null && echo tmp-rw || echo tmp-ro
(echo x > /tmp/probe/x) 2>/dev/null && echo workspace-rw || echo workspace-ro
unshare -U true 2>/dev/null && echo userns-open || echo userns-closed`;

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
