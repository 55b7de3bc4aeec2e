// The launch is `/bin/sh -c WRAPPER …`, a few lines of POSIX shell on the host side, because a
// launcher returns plain data (the process transport spawns whatever it is given) and three things
// must happen around bubblewrap that bwrap cannot do itself:
//   1. join the pids cgroup (writing 0 to cgroup.procs moves the writer) in the subshell that then
//      execs bwrap, so only the sandbox counts against pids.max and the watcher below can still
//      fork while a fork bomb holds the limit;
//   2. hand bwrap its options on a pipe (--args), so the sandbox's PID 1 does not show the host's
//      paths or the environment in /proc/1/cmdline (bwrap reads only options there: the command
//      stays on its command line);
//   3. measure the workspace every few seconds with `du` and SIGKILL bwrap when it is over quota
//      (--die-with-parent then kills everything inside). The watcher runs outside the sandbox, so
//      the tool can neither see nor kill it.
// The transport spawns the shell as a process group leader; bwrap and the watcher stay in that
// group, so killing the group stops all of it. bwrap's child calls setsid (--new-session) and
// leaves the group, but --die-with-parent takes it, and the pid namespace with it, when bwrap dies.
import type { BwrapCommandLine } from './bwrap-arguments.js';
import type { LaunchSpec } from './launch-spec.js';

export const WRAPPER_SCRIPT = `bwrap=$1 cgroup=$2 workspace=$3 quota_kib=$4 interval=$5 count=$6
shift 6
options() {
  i=0
  while [ "$i" -lt "$count" ]; do printf '%s\\0' "$1"; shift; i=$((i + 1)); done
}
exec 3<&0
options "$@" | {
  if [ -n "$cgroup" ]; then
    echo 0 > "$cgroup/cgroup.procs" || { echo "[ferry/sandbox] cannot join the cgroup $cgroup" >&2; exit 125; }
  fi
  shift "$count"
  exec 4<&0 0<&3 3<&-
  exec "$bwrap" --args 4 -- "$@"
} &
child=$!
exec 3<&- 0</dev/null
watcher=
if [ "$quota_kib" -gt 0 ]; then
  (
    # The nap is killed with the watcher, so nothing of the wrapper outlives the server.
    nap=
    trap 'kill $nap 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$interval" >/dev/null 2>&1 &
      nap=$!
      wait "$nap"
      used=$(du -skx -- "$workspace" 2>/dev/null | cut -f1)
      if [ "\${used:-0}" -gt "$quota_kib" ]; then
        echo "[ferry/sandbox] E_QUOTA_EXCEEDED: the workspace holds \${used} KiB, over its quota of $quota_kib KiB; the server was stopped. Delete files from the workspace to go on." >&2
        kill -KILL "$child" 2>/dev/null
        exit 0
      fi
    done
  ) >/dev/null &
  watcher=$!
fi
wait "$child"
status=$?
[ -z "$watcher" ] || kill "$watcher" 2>/dev/null
exit "$status"
`;

export interface WrapperOptions {
  bwrapPath: string;
  /** A pids cgroup directory to join, or undefined. */
  cgroupDir?: string;
  /** Host path of the workspace the quota watches. */
  hostDir: string;
  /** null: no watcher. */
  workspaceBytes: number | null;
  quotaCheckMs: number;
  bwrap: BwrapCommandLine;
  /** The wrapper's own environment (bwrap clears it for the tool). */
  env: Record<string, string>;
}

export function wrapperLaunch(options: WrapperOptions): LaunchSpec {
  const quotaKib = options.workspaceBytes === null ? 0 : Math.floor(options.workspaceBytes / 1024);
  return {
    command: '/bin/sh',
    args: [
      '-c',
      WRAPPER_SCRIPT,
      // $0 of the script: what ps shows and sh prefixes its own errors with.
      'ferry-sandbox',
      options.bwrapPath,
      options.cgroupDir ?? '',
      options.hostDir,
      String(quotaKib),
      (options.quotaCheckMs / 1000).toFixed(3),
      String(options.bwrap.options.length),
      ...options.bwrap.options,
      ...options.bwrap.command,
    ],
    env: options.env,
    cwd: '/',
  };
}
