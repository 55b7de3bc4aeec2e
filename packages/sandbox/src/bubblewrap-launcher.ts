// The launcher the host uses for local (stdio) servers: every process of every user inside its own
// bubblewrap sandbox, the user's workspace at /tmp/<username> (bwrap-arguments.ts), limits from
// sandbox-limits.ts, started through sandbox-wrapper.ts. What runs where:
//
//   launcher mode × server `sandbox`   required if either says required, else off if either says
//                                      off, else auto
//   required, sandbox usable           sandboxed
//   required, sandbox unusable         FerryError E_SANDBOX_UNAVAILABLE (the pool and the
//                                      pipeline pass it on as that envelope)
//   auto, sandbox unusable; off        unsandboxed, with a warning each launch (onWarning), and
//                                      FERRY_WORKSPACE_ROOT so tools write where Ferry looks
//   workspace over quota               FerryError E_QUOTA_EXCEEDED before anything starts
//
// The host must look for the workspace where the tool writes: `createHost({ launcher, toolRoot:
// launcher.toolRootFor })` (or toolRoot: '/tmp' when every server is sandboxed).
import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { FerryError, isValidUsername } from '@ferry/contract';
import { bwrapArguments, SANDBOX_TOOL_ROOT, toolDirOf } from './bwrap-arguments.js';
import {
  fillUser,
  type LaunchSpec,
  type SandboxLauncher,
  type SandboxMode,
  type SandboxServer,
} from './launch-spec.js';
import { type ProbeResult, runProbe, type SandboxProbe } from './probe-sandbox.js';
import { prlimitOptions, resolveLimits, type SandboxLimits } from './sandbox-limits.js';
import { wrapperLaunch } from './sandbox-wrapper.js';
import { diskUsageBytes, prepareUserWorkspace } from './user-workspace.js';

export interface BubblewrapLauncherOptions {
  /** Host directory of the per-user workspaces: the host's `workspacesRoot`. Hidden inside. */
  workspacesRoot: string;
  /** Floor for every server (see the table above). @default 'auto' */
  mode?: SandboxMode;
  /** false: no server gets the network, whatever its config says. @default true (per server config) */
  network?: boolean;
  /** For every server. @default DEFAULT_LIMITS */
  limits?: SandboxLimits;
  /** Per server name, over `limits`. */
  serverLimits?: Readonly<Record<string, SandboxLimits>>;
  /**
   * Host paths the tools must not see, on top of the workspaces root and /etc/shadow, /etc/gshadow:
   * Ferry's data directory (the FileStore), config files with secrets, home directories. The rest
   * of the file system is readable (not writable) by tools as far as Ferry's own user may read it,
   * so run Ferry as a dedicated non-root user.
   */
  hide?: readonly string[];
  /** @default 'bwrap' in PATH */
  bwrapPath?: string;
  /** The user and group tools run as inside (mapped to Ferry's own outside). @default 65534 (nobody) */
  uid?: number;
  gid?: number;
  /** Every launch that is not sandboxed. @default a line on stderr */
  onWarning?: (warning: SandboxWarning) => void;
}

export interface SandboxWarning {
  server: string;
  user: string;
  message: string;
}

export interface BubblewrapLauncher extends SandboxLauncher {
  /** The startup probe, run once per launcher (on first use of this or a launch). */
  probe(): Promise<SandboxProbe>;
  /** Where `server`'s tools see the workspaces: '/tmp' sandboxed, undefined (host paths) not. */
  toolRootFor(server: SandboxServer): Promise<string | undefined>;
}

/** Variables a sandboxed tool keeps from Ferry's environment; HOME, USER and LOGNAME are its own. */
export const SANDBOX_INHERITED_ENV: readonly string[] = Object.freeze([
  'PATH',
  'LANG',
  'LC_ALL',
  'TZ',
  'TERM',
]);
/** The unsandboxed fallback keeps what the host's default launcher keeps. */
const UNSANDBOXED_INHERITED_ENV = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'TZ',
];
const ALWAYS_HIDDEN = ['/etc/shadow', '/etc/gshadow'];
const WORKSPACE_ROOT_ENV = 'FERRY_WORKSPACE_ROOT';
const NOBODY = 65534;

export function createBubblewrapLauncher(options: BubblewrapLauncherOptions): BubblewrapLauncher {
  if (typeof options?.workspacesRoot !== 'string' || options.workspacesRoot === '') {
    throw new Error('[ferry/sandbox] [bubblewrap] option "workspacesRoot" is required');
  }
  for (const path of options.hide ?? []) {
    if (!isAbsolute(path)) throw new Error(`[ferry/sandbox] [bubblewrap] hide: ${path} is not absolute`);
  }
  const mode = options.mode ?? 'auto';
  const baseLimits = resolveLimits(options.limits);
  for (const layer of Object.values(options.serverLimits ?? {})) resolveLimits(options.limits, layer);
  const warn =
    options.onWarning ??
    ((w) => console.warn(`[ferry/sandbox] WARNING (${w.server}, ${w.user}): ${w.message}`));
  let probing: Promise<ProbeResult> | undefined;
  const probe = () => {
    probing ??= runProbe({ mode, ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}) });
    return probing;
  };
  const modeOf = (server: SandboxServer): SandboxMode => {
    if (mode === 'required' || server.sandbox === 'required') return 'required';
    return mode === 'off' || server.sandbox === 'off' ? 'off' : 'auto';
  };

  const unsandboxed = async (server: SandboxServer, user: string, message: string): Promise<LaunchSpec> => {
    warn({ server: server.name, user, message });
    const { root } = await prepareUserWorkspace(options.workspacesRoot, user);
    const env = pick(process.env, UNSANDBOXED_INHERITED_ENV);
    const spec: LaunchSpec = {
      command: server.command,
      args: server.args.map((arg) => fillUser(arg, user)),
      env: { ...env, ...fillEnv(server.env, user), [WORKSPACE_ROOT_ENV]: root },
    };
    if (server.cwd !== undefined) spec.cwd = server.cwd;
    return spec;
  };

  const launch = async (server: SandboxServer, user: string): Promise<LaunchSpec> => {
    if (!isValidUsername(user))
      throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
    const serverMode = modeOf(server);
    if (serverMode === 'off') {
      return unsandboxed(server, user, `server "${server.name}" runs WITHOUT a sandbox (sandbox: "off").`);
    }
    const { probe: result, bwrapPath, cgroup } = await probe();
    if (!result.available || bwrapPath === undefined || result.limits.prlimit === undefined) {
      const cause = result.reason ?? 'bubblewrap is unavailable';
      if (serverMode === 'required') {
        throw new FerryError(
          'E_SANDBOX_UNAVAILABLE',
          `MCP server "${server.name}" needs the sandbox, which is not available: ${cause}`,
          { server: server.name, cause },
        );
      }
      return unsandboxed(server, user, result.warning ?? cause);
    }

    const limits = resolveLimits(baseLimits, options.serverLimits?.[server.name]);
    const paths = await prepareUserWorkspace(options.workspacesRoot, user);
    if (limits.workspaceBytes !== null) {
      const used = await diskUsageBytes(paths.hostDir);
      if (used > limits.workspaceBytes) {
        throw new FerryError(
          'E_QUOTA_EXCEEDED',
          `The workspace of ${user} holds ${used} bytes, over its quota of ${limits.workspaceBytes}; MCP server "${server.name}" was not started. Delete files from the workspace or end the session.`,
          { server: server.name, used_bytes: used, limit_bytes: limits.workspaceBytes, scope: 'workspace' },
        );
      }
    }
    const hidden = await classify([paths.root, ...(options.hide ?? []), ...ALWAYS_HIDDEN]);
    let cgroupDir: string | undefined;
    if (cgroup && limits.processes !== null) {
      await cgroup.sweep();
      cgroupDir = await cgroup.create(limits.processes);
    }
    const toolDir = toolDirOf(user);
    const env: Record<string, string> = {
      ...pick(process.env, SANDBOX_INHERITED_ENV),
      HOME: toolDir,
      USER: user,
      LOGNAME: user,
      ...fillEnv(server.env, user),
    };
    // The tool sees its workspace at /tmp/<user>, the default of every convention; a root set
    // for the host's view would point it at a path that does not exist inside.
    delete env[WORKSPACE_ROOT_ENV];
    const bwrap = bwrapArguments({
      username: user,
      hostDir: paths.hostDir,
      inputDir: paths.inputDir,
      network: server.network && options.network !== false,
      hiddenDirs: hidden.dirs,
      hiddenFiles: hidden.files,
      env,
      cwd: server.cwd ?? toolDir,
      ...(server.cwd ? { programDirs: [resolve(server.cwd)] } : {}),
      uid: options.uid ?? NOBODY,
      gid: options.gid ?? NOBODY,
      tmpBytes: limits.tmpBytes,
      prlimit: { path: result.limits.prlimit, options: prlimitOptions(limits) },
      command: server.command,
      args: server.args.map((arg) => fillUser(arg, user)),
    });
    return wrapperLaunch({
      bwrapPath,
      ...(cgroupDir ? { cgroupDir } : {}),
      hostDir: paths.hostDir,
      workspaceBytes: limits.workspaceBytes,
      quotaCheckMs: limits.quotaCheckMs,
      bwrap,
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
    });
  };

  return Object.assign(launch, {
    probe: async () => (await probe()).probe,
    toolRootFor: async (server: SandboxServer) => {
      const serverMode = modeOf(server);
      if (serverMode === 'off') return undefined;
      const { probe: result } = await probe();
      return result.available || serverMode === 'required' ? SANDBOX_TOOL_ROOT : undefined;
    },
  });
}

function pick(source: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    // Exported shell functions look like `() { …`; never pass them on (as the MCP SDK does).
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

function fillEnv(env: Readonly<Record<string, string>>, user: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, fillUser(value, user)]));
}

/** Real paths of what exists, as directories (covered by a tmpfs) or files (covered by /dev/null). */
async function classify(paths: readonly string[]): Promise<{ dirs: string[]; files: string[] }> {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const path of paths) {
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined || real === '/') continue;
    const stats = await lstat(real);
    (stats.isDirectory() ? dirs : files).add(real);
  }
  return { dirs: [...dirs], files: [...files] };
}
