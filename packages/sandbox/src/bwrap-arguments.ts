// The bubblewrap command line for one server of one user, as a pure function of a plan, so every
// flag is visible (and tested) in one place. What the tool gets:
//   /                     the host's, read-only (recursively), minus the hidden paths
//   /proc, /dev           a new procfs for the new pid namespace, its /proc/sys read-only (bwrap
//                         leaves it writable per file mode, and the sandbox maps to Ferry's uid,
//                         which owns those files: vm/drop_caches would work); a minimal read-only
//                         /dev (null, zero, random, urandom, tty, pts) with a size-limited /dev/shm
//   /tmp                  a private tmpfs (size-limited): the host's /tmp and other users'
//                         workspaces do not exist in it
//   /tmp/<user>           the user's workspace, read-write (a bind of the host directory)
//   /tmp/<user>/input_files  Ferry's materialized inputs, read-only (a bind over the above)
//   /run                  an empty read-only tmpfs: it holds the host's unix sockets (PostgreSQL,
//                         D-Bus, MySQL), which a read-only mount does not stop a client connecting to
//   namespaces            user, pid, ipc, uts, cgroup and net unshared (net kept only when the server
//                         is allowed the network); no nested user namespaces; no capabilities
//   environment           only what the plan lists (--clearenv)

export interface BwrapPlan {
  username: string;
  /** Host path of the user's workspace and of its `input_files/`. */
  hostDir: string;
  inputDir: string;
  /** Keep the host's network namespace. */
  network: boolean;
  /** Host directories to cover with an empty read-only tmpfs, and files to cover with /dev/null. */
  hiddenDirs: readonly string[];
  hiddenFiles: readonly string[];
  /** The whole environment inside. */
  env: Readonly<Record<string, string>>;
  /** Working directory inside. */
  cwd: string;
  /**
   * Host directories the server's program lives in (its configured cwd). One under /tmp would be
   * covered by the private /tmp, so it is bound back read-only at the same path: it is visible
   * read-only anyway when it lies elsewhere, so this shows nothing new.
   */
  programDirs?: readonly string[];
  uid: number;
  gid: number;
  /** Size of the private /tmp and of /dev/shm, each; null: the kernel's default (half the RAM). */
  tmpBytes: number | null;
  /** Run the command through prlimit with these options (none: run it directly). */
  prlimit?: { path: string; options: readonly string[] };
  command: string;
  args: readonly string[];
}

/** Where every workspace appears inside the sandbox, as v2.1 §5 names it. */
export const SANDBOX_TOOL_ROOT = '/tmp';
export const SANDBOX_HOSTNAME = 'ferry-sandbox';
/** What --proc, --dev and the private /tmp and /run already replace: hiding inside them is moot. */
const REPLACED = ['/tmp', '/proc', '/dev', '/run'];

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
  const args = [
    '--unshare-all',
    // Explicit (--unshare-all only tries it), so --disable-userns below is accepted.
    '--unshare-user',
    ...(plan.network ? ['--share-net'] : []),
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    String(plan.uid),
    '--gid',
    String(plan.gid),
    '--hostname',
    SANDBOX_HOSTNAME,
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    // From the host's /proc (bind sources always are): the same values, read-only.
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--dev',
    '/dev',
    ...sized(plan.tmpBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
  ];
  for (const dir of plan.hiddenDirs) {
    if (isUnder(dir, REPLACED)) continue;
    args.push('--perms', '0555', '--tmpfs', dir, '--remount-ro', dir);
  }
  for (const file of plan.hiddenFiles) {
    if (!isUnder(file, REPLACED)) args.push('--ro-bind', '/dev/null', file);
  }
  args.push('--perms', '0555', '--tmpfs', '/run');
  // With the network, name resolution may go through systemd-resolved's files under /run.
  if (plan.network) args.push('--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  args.push('--remount-ro', '/run', ...sized(plan.tmpBytes));
  args.push(
    '--tmpfs',
    SANDBOX_TOOL_ROOT,
    // Bind sources are read from the host's tree, so hiding their parents above does not hide them.
    '--bind',
    plan.hostDir,
    toolDir,
    '--ro-bind',
    plan.inputDir,
    `${toolDir}/input_files`,
  );
  for (const dir of plan.programDirs ?? []) {
    if (isUnder(dir, [SANDBOX_TOOL_ROOT]) && !isUnder(dir, [toolDir]) && !isUnder(toolDir, [dir])) {
      args.push('--ro-bind', dir, dir);
    }
  }
  args.push('--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  args.push('--chdir', plan.cwd);
  const command = plan.prlimit ? [plan.prlimit.path, ...plan.prlimit.options, '--'] : [];
  command.push(plan.command, ...plan.args);
  return { options: args, command };
}

function sized(bytes: number | null): string[] {
  return bytes === null ? [] : ['--size', String(bytes)];
}

function isUnder(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}
