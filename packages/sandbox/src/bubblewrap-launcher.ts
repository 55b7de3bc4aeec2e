// The launcher the host uses for local (stdio) servers: every process of every user inside its own
// bubblewrap sandbox on an allow-list (bwrap-arguments.ts), as an unprivileged host user
// (sandbox-identity.ts), its program found and bound (program-paths.ts), limits from
// sandbox-limits.ts, the network isolated (sandbox-network.ts), started through sandbox-wrapper.ts.
// What runs where:
//
//   launcher mode × server `sandbox`   required if either says required; off only when the
//                                      launcher is off, or the server says off AND
//                                      `allowServerOff` lets it; else auto
//   required, sandbox usable           sandboxed
//   required, sandbox unusable         FerryError E_SANDBOX_UNAVAILABLE (the pool and the
//                                      pipeline pass it on as that envelope)
//   auto, sandbox unusable; off        unsandboxed, with a warning each launch (onWarning); the
//                                      tool still finds its workspace at /tmp/<user>: a link to
//                                      the host directory, or the launch is refused saying why
//   network asked, no user-mode stack  required: E_SANDBOX_UNAVAILABLE; auto: no network, warned
//   program not found                  FerryError E_TOOL_UNAVAILABLE naming the missing path
//   workspace over quota               FerryError E_QUOTA_EXCEEDED before anything starts
import { lstat, readlink, realpath, rm, symlink } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import {
  FerryError,
  fillTemplate,
  fillTemplates,
  fillUserTemplate,
  isValidUsername,
  type SandboxMode,
  type TemplateValues,
  WORKSPACE_ROOT_ENV,
} from '@ferry/contract';
import {
  bwrapArguments,
  identityPlan,
  SANDBOX_SCRATCH,
  SANDBOX_TOOL_ROOT,
  toolDirOf,
} from './bwrap-arguments.js';
import {
  extrasEnv,
  INHERITED_ENV_VARS,
  inheritedEnv,
  type LaunchExtras,
  type LaunchSpec,
  LOCAL_SERVER_ENV_DEFAULTS,
  type SandboxLauncher,
  type SandboxServer,
} from './launch-spec.js';
import { type ProbeResult, runProbe, type SandboxProbe } from './probe-sandbox.js';
import { findProgramPaths, ProgramNotFound, unreadableBy } from './program-paths.js';
import { SANDBOX_STATE_DIR, writeSandboxEtc } from './sandbox-etc.js';
import { checkRunAs, type RunAs, type SandboxIdentity } from './sandbox-identity.js';
import { prlimitOptions, resolveLimits, type SandboxLimits } from './sandbox-limits.js';
import { hostAddresses } from './sandbox-network.js';
import { wrapperLaunch } from './sandbox-wrapper.js';
import { isUnder, NEVER_BOUND } from './system-paths.js';
import { diskUsageBytes, prepareUserWorkspace, type WorkspaceOwner } from './user-workspace.js';

/** An extra host path a server sees at the same place: read-only unless `writable`. */
export type SandboxBind = string | { path: string; writable?: boolean };

export interface BubblewrapLauncherOptions {
  /** Host directory of the per-user workspaces: the host's `workspacesRoot`. Never visible inside. */
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
   * Host paths that stay invisible even where they lie inside a tree a server's program needs (a
   * checkout under /tmp holding the data dir): Ferry's data directory, config files with secrets.
   * Everything not on the allow-list is invisible anyway.
   */
  hide?: readonly string[];
  /** Extra paths for every server, and per server name. */
  binds?: readonly SandboxBind[];
  bindsByServer?: Readonly<Record<string, readonly SandboxBind[]>>;
  /** Whether a server's own `sandbox: "off"` is honoured: true, or the names of such servers. @default false */
  allowServerOff?: boolean | readonly string[];
  /** The host user tools run as when Ferry is root. @default the system user ferry-sandbox, else nobody */
  runAs?: RunAs;
  /** @default 'bwrap' in PATH */
  bwrapPath?: string;
  /** Where generated /etc files live (never visible inside). @default <workspacesRoot>/.ferry-sandbox */
  stateDir?: string;
  /** Every launch that is not sandboxed (or not as configured). @default a line on stderr */
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
  /** Where `server`'s tools see the workspaces: always '/tmp' (a link to the host directory when unsandboxed). */
  toolRootFor(server: SandboxServer): Promise<string | undefined>;
  /** How `server` will run, and why when it is not sandboxed as configured: for startup warnings. */
  describe(server: SandboxServer): Promise<ServerSandboxReport>;
  /** Who owns the workspaces (the sandbox user when Ferry is root); undefined: Ferry itself. */
  workspaceOwner(): Promise<WorkspaceOwner | undefined>;
}

export interface ServerSandboxReport {
  server: string;
  effectiveMode: 'sandboxed' | 'unsandboxed' | 'refused';
  network: 'none' | 'isolated' | 'refused' | 'dropped';
  /** Why the server cannot start at all (its program), one line naming the path. */
  problem?: string;
  /** Each way it runs other than configured, one line each. */
  warnings: string[];
}

/**
 * Variables a sandboxed tool keeps from Ferry's environment: the inherited list without the
 * identity (HOME, USER and LOGNAME are the tool's own, set at launch) and without SHELL, a host
 * program the sandbox may not bind. The unsandboxed fallback keeps the whole list, as the host's
 * default launcher does.
 */
export const SANDBOX_INHERITED_ENV: readonly string[] = Object.freeze(
  INHERITED_ENV_VARS.filter((name) => !['HOME', 'USER', 'LOGNAME', 'SHELL'].includes(name)),
);
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export function createBubblewrapLauncher(options: BubblewrapLauncherOptions): BubblewrapLauncher {
  if (typeof options?.workspacesRoot !== 'string' || options.workspacesRoot === '') {
    throw new Error('[ferry/sandbox] [bubblewrap] option "workspacesRoot" is required');
  }
  for (const path of options.hide ?? []) {
    if (!isAbsolute(path)) throw new Error(`[ferry/sandbox] [bubblewrap] hide: ${path} is not absolute`);
  }
  const binds = checkBinds(options.binds ?? [], 'binds');
  const bindsByServer = Object.fromEntries(
    Object.entries(options.bindsByServer ?? {}).map(([name, list]) => [
      name,
      checkBinds(list, `bindsByServer.${name}`),
    ]),
  );
  checkRunAs(options.runAs);
  const mode = options.mode ?? 'auto';
  const baseLimits = resolveLimits(options.limits);
  for (const layer of Object.values(options.serverLimits ?? {})) resolveLimits(options.limits, layer);
  const stateDir = options.stateDir ?? join(options.workspacesRoot, SANDBOX_STATE_DIR);
  const warn =
    options.onWarning ??
    ((w) => console.warn(`[ferry/sandbox] WARNING (${w.server}, ${w.user}): ${w.message}`));
  let probing: Promise<ProbeResult> | undefined;
  const probe = () => {
    probing ??= runProbe({
      mode,
      ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
      ...(options.runAs !== undefined ? { runAs: options.runAs } : {}),
    });
    return probing;
  };
  const offAllowed = (server: SandboxServer) => {
    const allow = options.allowServerOff ?? false;
    return allow === true || (Array.isArray(allow) && allow.includes(server.name));
  };
  const modeOf = (server: SandboxServer): SandboxMode => {
    if (mode === 'required' || server.sandbox === 'required') return 'required';
    if (mode === 'off') return 'off';
    return server.sandbox === 'off' && offAllowed(server) ? 'off' : 'auto';
  };
  const ownerFrom = (result: ProbeResult): WorkspaceOwner | undefined =>
    result.probe.available && result.identity?.kind === 'setpriv'
      ? { uid: result.identity.uid, gid: result.identity.gid }
      : undefined;

  /**
   * The server's program as the sandbox will bind it; ProgramNotFound says what is missing.
   * Unsandboxed (`sandboxed` false) only whether it can start at all is checked.
   */
  const programOf = async (
    server: SandboxServer,
    args: string[],
    path: string,
    identity: SandboxIdentity | undefined,
    sandboxed = true,
  ) => {
    const program = await findProgramPaths({
      command: server.command,
      args,
      ...(server.cwd !== undefined ? { cwd: resolve(server.cwd) } : {}),
      path,
      sandboxed,
    });
    if (identity?.kind === 'setpriv') {
      // The sandbox user is not Ferry: a program in a directory only root may enter would fail
      // inside with a bare "Permission denied". Said here, naming the path.
      const blocked = await unreadableBy(program.files, program.roots, identity);
      if (blocked) {
        throw new ProgramNotFound(
          `${blocked.path} is not readable by the sandbox user ${identity.name} (uid ${identity.uid}): ${blocked.why}. Make it readable (chmod o+rX), or set sandbox.runAs`,
        );
      }
    }
    return program;
  };

  const describe = async (server: SandboxServer): Promise<ServerSandboxReport> => {
    const result = await probe();
    const serverMode = modeOf(server);
    const warnings: string[] = [];
    if (server.sandbox === 'off' && serverMode !== 'off') {
      warnings.push(
        `MCP server "${server.name}" asks for sandbox: "off", which sandbox.allowServerOff does not allow: it runs sandboxed.`,
      );
    }
    let effectiveMode: ServerSandboxReport['effectiveMode'];
    if (serverMode === 'off') effectiveMode = 'unsandboxed';
    else if (result.probe.available) effectiveMode = 'sandboxed';
    else effectiveMode = serverMode === 'required' ? 'refused' : 'unsandboxed';
    if (effectiveMode === 'unsandboxed') {
      const why =
        serverMode === 'off'
          ? mode === 'off'
            ? 'sandbox.mode is "off"'
            : 'its own sandbox: "off"'
          : result.probe.reason;
      warnings.push(
        `MCP server "${server.name}" runs WITHOUT the sandbox (${why}): it can read and write what Ferry can.`,
      );
    }
    let network: ServerSandboxReport['network'] = 'none';
    const wantsNetwork = server.network && options.network !== false;
    if (wantsNetwork && effectiveMode === 'sandboxed') {
      if (result.network.helpers) network = 'isolated';
      else if (serverMode === 'required') network = 'refused';
      else {
        network = 'dropped';
        warnings.push(
          `MCP server "${server.name}" asks for the network, but ${result.network.reason}: it runs WITHOUT network access.`,
        );
      }
    }
    let problem: string | undefined;
    if (effectiveMode !== 'refused') {
      // Per-user arguments name no real path yet ({{user}} is filled at launch, checked then).
      const args = server.args
        .filter((arg) => !arg.includes('{{'))
        .map((arg) => fillUserTemplate(arg, 'probe'));
      const sandboxed = effectiveMode === 'sandboxed';
      problem = await programOf(
        server,
        args,
        process.env.PATH ?? DEFAULT_PATH,
        sandboxed ? result.identity : undefined,
        sandboxed,
      ).then(
        () => undefined,
        (error: unknown) => (error instanceof ProgramNotFound ? error.message : String(error)),
      );
    }
    return { server: server.name, effectiveMode, network, ...(problem ? { problem } : {}), warnings };
  };

  const unsandboxed = async (
    server: SandboxServer,
    user: string,
    extras: LaunchExtras | undefined,
    message: string,
  ): Promise<LaunchSpec> => {
    const values = templateValues(user, extras);
    const filled = fillTemplates(server.env, values);
    delete filled[WORKSPACE_ROOT_ENV];
    const spec: LaunchSpec = {
      command: server.command,
      args: server.args.map((arg) => fillTemplate(arg, values)),
      // Outside a sandbox a socket is reached at its host path; nothing to bind.
      env: { ...LOCAL_SERVER_ENV_DEFAULTS, ...inheritedEnv(), ...filled, ...extrasEnv(extras, false) },
    };
    if (server.cwd !== undefined) spec.cwd = server.cwd;
    // A misspelt command or script: one line naming it, before anything is prepared, instead of
    // spawn's ENOENT or the interpreter's stack trace.
    await programOf(server, spec.args, spec.env.PATH ?? DEFAULT_PATH, undefined, false).catch(
      (error: unknown) => {
        throw cannotStart(server, error);
      },
    );
    warn({ server: server.name, user, message });
    const paths = await prepareUserWorkspace(options.workspacesRoot, user, ownerFrom(await probe()));
    // v2.1 §5.1: the tool writes /tmp/<user>. Unsandboxed, that is the host's /tmp: a link to the
    // workspace makes it so, or the launch is refused rather than writing somewhere Ferry never looks.
    await linkToolDir(toolDirOf(user), paths.hostDir, server.name);
    return spec;
  };

  const launch = async (server: SandboxServer, user: string, extras?: LaunchExtras): Promise<LaunchSpec> => {
    if (!isValidUsername(user))
      throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
    checkSockets(extras);
    const serverMode = modeOf(server);
    if (serverMode === 'off') {
      return unsandboxed(
        server,
        user,
        extras,
        `server "${server.name}" runs WITHOUT a sandbox (sandbox: "off").`,
      );
    }
    const result = await probe();
    const { probe: found, bwrapPath, cgroup, identity } = result;
    if (!found.available || bwrapPath === undefined || found.limits.prlimit === undefined || !identity) {
      const cause = found.reason ?? 'bubblewrap is unavailable';
      if (serverMode === 'required') {
        throw new FerryError(
          'E_SANDBOX_UNAVAILABLE',
          `MCP server "${server.name}" needs the sandbox, which is not available: ${cause}`,
          { server: server.name, cause },
        );
      }
      return unsandboxed(server, user, extras, found.warning ?? cause);
    }

    let network = server.network && options.network !== false;
    if (network && !result.network.helpers) {
      const cause = result.network.reason ?? 'no user-mode network stack';
      if (serverMode === 'required') {
        throw new FerryError(
          'E_SANDBOX_UNAVAILABLE',
          `MCP server "${server.name}" asks for the network, which the sandbox cannot isolate here: ${cause}`,
          { server: server.name, cause },
        );
      }
      warn({ server: server.name, user, message: `runs WITHOUT network access: ${cause}.` });
      network = false;
    }

    const limits = resolveLimits(baseLimits, options.serverLimits?.[server.name]);
    const owner = ownerFrom(result);
    const paths = await prepareUserWorkspace(options.workspacesRoot, user, owner);
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
    const toolDir = toolDirOf(user);
    const values = templateValues(user, extras);
    const env: Record<string, string> = {
      ...LOCAL_SERVER_ENV_DEFAULTS,
      ...inheritedEnv(process.env, SANDBOX_INHERITED_ENV),
      HOME: toolDir,
      USER: user,
      LOGNAME: user,
      TMPDIR: SANDBOX_SCRATCH,
      ...fillTemplates(server.env, values),
      ...extrasEnv(extras, true),
    };
    // The tool sees its workspace at /tmp/<user>, the default of every convention.
    delete env[WORKSPACE_ROOT_ENV];
    const args = server.args.map((arg) => fillTemplate(arg, values));
    const cwd = server.cwd === undefined ? undefined : resolve(server.cwd);
    const program = await programOf(server, args, env.PATH ?? DEFAULT_PATH, identity).catch(
      (error: unknown) => {
        throw cannotStart(server, error);
      },
    );
    const extra = [...binds, ...(bindsByServer[server.name] ?? [])];
    // Nothing of the program may land on the workspace mount or on /tmp itself.
    const programRoots = program.roots.filter((root) => !isUnder(root, toolDir) && !isUnder(toolDir, root));
    const masks = await masksInside(
      [...programRoots, ...extra.map((bind) => bind.path)],
      [paths.root, stateDir, ...(options.hide ?? [])],
    );
    const etc = await writeSandboxEtc(stateDir, user, identity);
    let cgroupDir: string | undefined;
    if (cgroup && limits.processes !== null) {
      await cgroup.sweep();
      cgroupDir = await cgroup.create(limits.processes);
    }
    // RLIMIT_NPROC counts every process of the host uid, so it is shared by all sandboxes: with a
    // cgroup per sandbox it would only get in the way of the next user's.
    const rlimits = prlimitOptions(cgroupDir ? { ...limits, processes: null } : limits);
    const bwrap = bwrapArguments({
      username: user,
      hostDir: paths.hostDir,
      inputDir: paths.inputDir,
      network,
      system: network ? [...result.system, ...result.networkSystem] : result.system,
      etc,
      programRoots,
      binds: extra,
      sockets: extras?.sockets ?? [],
      masks,
      env,
      cwd: cwd ?? toolDir,
      identity: identityPlan(identity, {
        setprivPath: result.setprivPath,
        innerBwrap: result.innerBwrap ? bwrapPath : undefined,
      }),
      tmpBytes: limits.tmpBytes,
      prlimit: { path: found.limits.prlimit, options: rlimits },
      command: program.executable,
      args,
    });
    return wrapperLaunch({
      bwrapPath,
      ...(cgroupDir ? { cgroupDir } : {}),
      hostDir: paths.hostDir,
      workspaceBytes: limits.workspaceBytes,
      quotaCheckMs: limits.quotaCheckMs,
      bwrap,
      ...(network && result.network.helpers
        ? {
            network: {
              helpers: result.network.helpers,
              refused: hostAddresses(),
              userns: identity.kind === 'userns',
            },
          }
        : {}),
      env: { PATH: process.env.PATH ?? DEFAULT_PATH },
    });
  };

  return Object.assign(launch, {
    probe: async () => (await probe()).probe,
    toolRootFor: async () => SANDBOX_TOOL_ROOT,
    describe,
    workspaceOwner: async () => ownerFrom(await probe()),
  });
}

/** The values of a launch's placeholders: the user, and what the connection adds. */
function templateValues(user: string, extras: LaunchExtras | undefined): TemplateValues {
  return { ...extras?.placeholders, user };
}

/**
 * A socket is bound at its tool path, so that path must be one nothing else of the sandbox uses:
 * under /run (empty inside), absolute and normal. Programmer errors: the host makes these.
 */
function checkSockets(extras: LaunchExtras | undefined): void {
  for (const { hostPath, toolPath } of extras?.sockets ?? []) {
    if (!isAbsolute(hostPath)) {
      throw new Error(
        `[ferry/sandbox] [bubblewrap] socket ${JSON.stringify(hostPath)} is not an absolute path`,
      );
    }
    if (!toolPath.startsWith('/run/') || resolve(toolPath) !== toolPath) {
      throw new Error(
        `[ferry/sandbox] [bubblewrap] socket path inside ${JSON.stringify(toolPath)} must be a normal path under /run/`,
      );
    }
  }
}

/** ProgramNotFound as the call's failure (E_TOOL_UNAVAILABLE, one line); anything else as it is. */
function cannotStart(server: SandboxServer, error: unknown): unknown {
  if (!(error instanceof ProgramNotFound)) return error;
  return new FerryError('E_TOOL_UNAVAILABLE', `MCP server "${server.name}" cannot start: ${error.message}`, {
    server: server.name,
    cause: error.message,
  });
}

function checkBinds(list: readonly SandboxBind[], where: string): { path: string; writable: boolean }[] {
  return list.map((bind) => {
    const path = typeof bind === 'string' ? bind : bind?.path;
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw new Error(
        `[ferry/sandbox] [bubblewrap] ${where}: ${JSON.stringify(path)} is not an absolute path`,
      );
    }
    const normal = resolve(path);
    if (NEVER_BOUND.includes(normal)) {
      throw new Error(
        `[ferry/sandbox] [bubblewrap] ${where}: ${normal} cannot be bound whole; name the directory the server needs`,
      );
    }
    return { path: normal, writable: typeof bind === 'object' && bind.writable === true };
  });
}

/**
 * /tmp/<user> on the host as a link to the workspace, for a tool that runs unsandboxed. A link
 * Ferry made before (to this workspace, or dangling) is fine or replaced; anything else there (a
 * directory, another Ferry's link) refuses the launch with the reason.
 */
async function linkToolDir(toolDir: string, hostDir: string, server: string): Promise<void> {
  if (toolDir === hostDir) return;
  const refuse = (why: string) =>
    new FerryError(
      'E_TOOL_UNAVAILABLE',
      `MCP server "${server}" runs without the sandbox and must find its workspace at ${toolDir}, but ${why}. Remove it, or run the server sandboxed.`,
      { server, path: toolDir },
    );
  for (let attempt = 0; attempt < 3; attempt++) {
    const stats = await lstat(toolDir).catch(() => undefined);
    if (stats === undefined) {
      const made = await symlink(hostDir, toolDir).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return false;
          throw error;
        },
      );
      if (made) return;
      continue;
    }
    if (!stats.isSymbolicLink()) throw refuse(`${toolDir} exists and is not a link Ferry made`);
    if (stats.uid !== process.getuid?.()) throw refuse(`${toolDir} is a link of uid ${stats.uid}`);
    const target = await readlink(toolDir);
    if (target === hostDir) return;
    const alive = await realpath(toolDir).then(
      () => true,
      () => false,
    );
    if (alive) throw refuse(`${toolDir} points to ${target}, another Ferry's workspace`);
    await rm(toolDir, { force: true });
  }
  throw refuse(`${toolDir} keeps changing`);
}

/** The hidden paths that lie inside one of the bound trees, as directories and files to cover. */
async function masksInside(
  bound: readonly string[],
  hidden: readonly string[],
): Promise<{ dirs: string[]; files: string[] }> {
  const dirs = new Set<string>();
  const files = new Set<string>();
  const roots = await Promise.all(
    bound.map(async (root) => ({ root, real: await realpath(root).catch(() => root) })),
  );
  for (const path of hidden) {
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) continue;
    const stats = await lstat(real);
    for (const { root, real: realRoot } of roots) {
      for (const [candidate, base] of [
        [real, realRoot],
        [resolve(path), root],
      ] as const) {
        if (!isUnder(candidate, base) || candidate === base) continue;
        const inside = join(root, candidate.slice(base.length));
        (stats.isDirectory() ? dirs : files).add(inside);
      }
    }
  }
  // What lies inside a covered directory is gone with it (and its mount point could not be made).
  const covering = [...dirs];
  const outside = (path: string) => !covering.some((dir) => dir !== path && isUnder(path, dir));
  return { dirs: [...dirs].filter(outside), files: [...files].filter(outside) };
}
