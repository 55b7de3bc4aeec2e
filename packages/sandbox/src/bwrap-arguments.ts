// The bubblewrap command line for one server of one user, as a pure function of a plan, so every
// flag is visible (and tested) in one place. The sandbox starts from an empty root and gets only
// what the plan lists (an allow-list, DESIGN "Isolation"):
//   system directories    /usr, /bin, /lib… and a few /etc entries, read-only (system-paths.ts)
//   /etc/passwd, /etc/group   generated: they name the sandbox user and nothing of the host's
//   its own program       the package trees of its command, interpreter, scripts and cwd, read-only
//                         (program-paths.ts); extra `binds` from the config
//   sockets               host unix sockets a connection hands the server (the user's file
//                         provider), each read-only at its own path under /run
//   /proc, /dev           a new procfs for the new pid namespace (its /proc/sys read-only); a
//                         minimal read-only /dev with a size-limited, world-writable /dev/shm
//   /tmp                  a private tmpfs, READ-ONLY: only /tmp/<user> (the workspace, a bind of
//                         the host directory) is writable, /tmp/<user>/input_files is read-only
//   /var/tmp              a private size-limited scratch (TMPDIR points there)
//   masks                 Ferry's data dir, config and the workspaces root, where they lie inside a
//                         bound tree (a checkout under /tmp holding ./.ferry): an empty read-only
//                         tmpfs over each directory, /dev/null over each file
//   namespaces            mount, pid, ipc, uts, cgroup and net always (network access, when
//                         allowed, is a user-mode stack the wrapper attaches: sandbox-network.ts)
//   identity              `setpriv` (Ferry is root): bwrap mounts as root and the command starts
//                         through setpriv as an unprivileged host uid, no capabilities,
//                         no_new_privs, then in a user namespace mapped to that same uid where no
//                         nested user namespace can be made; `userns` (Ferry is not root): a user
//                         namespace mapping the sandbox user to Ferry's own uid, no capabilities,
//                         no nested user namespaces
//   environment           only what the plan lists (--clearenv)
import { INPUT_DIR_NAME } from '@ferry/contract';
import type { SystemMount } from './system-paths.js';

export type SandboxIdentityPlan =
  | {
      kind: 'setpriv';
      uid: number;
      gid: number;
      setprivPath: string;
      /**
       * bwrap again, run by the sandbox user, only to enter a user namespace mapped to itself in
       * which no further user namespace can be made (--disable-userns): where unprivileged user
       * namespaces are allowed, a tool could otherwise make one and hold capabilities in it.
       */
      innerBwrap?: string;
    }
  | { kind: 'userns'; uid: number; gid: number };

export interface BwrapPlan {
  username: string;
  /** Host path of the user's workspace and of its `input_files/`. */
  hostDir: string;
  inputDir: string;
  /** The name-resolution files are added; the wrapper attaches the user-mode network stack. */
  network: boolean;
  /** System directories and /etc entries as found on the host. */
  system: readonly SystemMount[];
  /** Generated host files bound over /etc/passwd, /etc/group and (network) /etc/resolv.conf. */
  etc: { passwd: string; group: string; resolvConf?: string };
  /** The server's own program trees, read-only, each at its own path. */
  programRoots: readonly string[];
  /** Extra host paths from the config, at their own path. */
  binds: readonly { path: string; writable: boolean }[];
  /** Host unix sockets, each bound read-only at its `toolPath` (under /run). */
  sockets?: readonly { hostPath: string; toolPath: string }[];
  /** Paths inside bound trees that stay invisible. */
  masks: { dirs: readonly string[]; files: readonly string[] };
  /** The whole environment inside. */
  env: Readonly<Record<string, string>>;
  /** Working directory inside. */
  cwd: string;
  identity: SandboxIdentityPlan;
  /** Size of the private /tmp, /var/tmp and /dev/shm, each; null: the kernel's default (half the RAM). */
  tmpBytes: number | null;
  /** Run the command through prlimit with these options (none: run it directly). */
  prlimit?: { path: string; options: readonly string[] };
  command: string;
  args: readonly string[];
}

/** The plan's identity for a sandbox user (sandbox-identity.ts) and the helpers the probe found. */
export function identityPlan(
  identity: { kind: 'setpriv' | 'userns'; uid: number; gid: number },
  helpers: { setprivPath?: string | undefined; innerBwrap?: string | undefined },
): SandboxIdentityPlan {
  const { uid, gid } = identity;
  if (identity.kind === 'userns') return { kind: 'userns', uid, gid };
  return {
    kind: 'setpriv',
    uid,
    gid,
    setprivPath: helpers.setprivPath ?? 'setpriv',
    ...(helpers.innerBwrap ? { innerBwrap: helpers.innerBwrap } : {}),
  };
}

/** Where every workspace appears inside the sandbox, as v2.1 §5 names it. */
export const SANDBOX_TOOL_ROOT = '/tmp';
/** The private scratch directory (TMPDIR): /tmp itself is read-only but for the workspace. */
export const SANDBOX_SCRATCH = '/var/tmp';
const SANDBOX_HOSTNAME = 'ferry-sandbox';

export function toolDirOf(username: string): string {
  return `${SANDBOX_TOOL_ROOT}/${username}`;
}

/** bwrap's options, and the command it runs (after `--`), apart: the wrapper hands them over differently. */
export interface BwrapCommandLine {
  options: string[];
  command: string[];
}

export function bwrapArguments(plan: BwrapPlan): BwrapCommandLine {
  const toolDir = toolDirOf(plan.username);
  const { identity } = plan;
  const args = [
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--unshare-net',
    ...(identity.kind === 'userns'
      ? [
          '--unshare-user',
          '--disable-userns',
          '--cap-drop',
          'ALL',
          '--uid',
          String(identity.uid),
          '--gid',
          String(identity.gid),
        ]
      : // setpriv needs the first three to become the sandbox user, bwrap the fourth to enter the
        // cwd (the workspace is the sandbox user's, 0700); setpriv drops them and all others
        // before anything of the tool runs.
        [
          '--cap-drop',
          'ALL',
          '--cap-add',
          'CAP_SETUID',
          '--cap-add',
          'CAP_SETGID',
          '--cap-add',
          'CAP_SETPCAP',
          '--cap-add',
          'CAP_DAC_OVERRIDE',
        ]),
    '--die-with-parent',
    '--new-session',
    '--hostname',
    SANDBOX_HOSTNAME,
  ];
  // bwrap makes missing parents of a mount point mode 0700 (root's): the sandbox user could not
  // enter /etc. Each parent is made first, 0755.
  const made = new Set(['/']);
  const parents = (path: string) => {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join('/')}`;
      if (made.has(dir)) continue;
      made.add(dir);
      args.push('--perms', '0755', '--dir', dir);
    }
    made.add(path);
  };
  for (const mount of plan.system) {
    parents(mount.path);
    if (mount.kind === 'symlink') args.push('--symlink', mount.target, mount.path);
    else args.push('--ro-bind', mount.path, mount.path);
  }
  parents('/etc/passwd');
  args.push('--ro-bind', plan.etc.passwd, '/etc/passwd', '--ro-bind', plan.etc.group, '/etc/group');
  if (plan.network && plan.etc.resolvConf) args.push('--ro-bind', plan.etc.resolvConf, '/etc/resolv.conf');
  for (const path of ['/proc', '/dev', '/dev/shm', SANDBOX_TOOL_ROOT, toolDir, '/var', SANDBOX_SCRATCH])
    made.add(path);
  args.push('--proc', '/proc');
  // In a user namespace mapped to Ferry's uid, /proc/sys would be writable by the tool per file
  // mode (vm/drop_caches): bound read-only from the host's. As an unprivileged host uid it cannot
  // write there anyway, and the inner bwrap must set its namespace limit there (`innerBwrap`).
  if (identity.kind === 'userns') args.push('--ro-bind', '/proc/sys', '/proc/sys');
  args.push(
    '--dev',
    '/dev',
    '--perms',
    '1777',
    ...sized(plan.tmpBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--perms',
    '0755',
    ...sized(plan.tmpBytes),
    '--tmpfs',
    SANDBOX_TOOL_ROOT,
    '--bind',
    plan.hostDir,
    toolDir,
    '--ro-bind',
    plan.inputDir,
    `${toolDir}/${INPUT_DIR_NAME}`,
    '--perms',
    '1777',
    ...sized(plan.tmpBytes),
    '--tmpfs',
    SANDBOX_SCRATCH,
  );
  for (const root of plan.programRoots) {
    parents(root);
    args.push('--ro-bind', root, root);
  }
  for (const bind of plan.binds) {
    parents(bind.path);
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.path, bind.path);
  }
  // A read-only bind of a socket is still connectable: connect(2) needs write permission on the
  // socket's inode, which a read-only mount does not take away.
  for (const socket of plan.sockets ?? []) {
    parents(socket.toolPath);
    args.push('--ro-bind', socket.hostPath, socket.toolPath);
  }
  for (const dir of plan.masks.dirs) args.push('--perms', '0000', '--tmpfs', dir, '--remount-ro', dir);
  for (const file of plan.masks.files) args.push('--ro-bind', '/dev/null', file);
  // Last, and not recursive: the workspace and the trees bound below /tmp keep their own modes.
  args.push('--remount-ro', SANDBOX_TOOL_ROOT);
  args.push('--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  args.push('--chdir', plan.cwd);

  const command: string[] = [];
  if (identity.kind === 'setpriv') {
    command.push(
      identity.setprivPath,
      `--reuid=${identity.uid}`,
      `--regid=${identity.gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    );
    if (identity.innerBwrap) {
      command.push(
        identity.innerBwrap,
        '--unshare-user',
        '--disable-userns',
        '--uid',
        String(identity.uid),
        '--gid',
        String(identity.gid),
        // --dev-bind: a plain bind is nodev, and /dev/null would refuse to open. The outer mounts
        // keep their own nodev, so only the outer /dev has devices.
        '--dev-bind',
        '/',
        '/',
        '--die-with-parent',
        '--cap-drop',
        'ALL',
        '--',
      );
    }
  }
  if (plan.prlimit) command.push(plan.prlimit.path, ...plan.prlimit.options, '--');
  command.push(plan.command, ...plan.args);
  return { options: args, command };
}

function sized(bytes: number | null): string[] {
  return bytes === null ? [] : ['--size', String(bytes)];
}
