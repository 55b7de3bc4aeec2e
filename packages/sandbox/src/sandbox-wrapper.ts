// The launch is `/bin/sh -c WRAPPER …`, a few lines of POSIX shell on the host side, because a
// launcher returns plain data (the process transport spawns whatever it is given) and four things
// must happen around bubblewrap that bwrap cannot do itself:
//   1. join the pids cgroup (writing 0 to cgroup.procs moves the writer) in the subshell that then
//      execs bwrap, so only the sandbox counts against pids.max and the watcher below can still
//      fork while a fork bomb holds the limit;
//   2. hand bwrap its options on a pipe (--args), so the sandbox's PID 1 does not show the host's
//      paths or the environment in /proc/1/cmdline (bwrap reads only options there: the command
//      stays on its command line);
//   3. with the network: bwrap reports its child's pid (--info-fd) and waits (--block-fd) while
//      slirp4netns is attached to the sandbox's network namespace and the host's own addresses
//      are refused there (sandbox-network.ts); only then does the tool start. A failure of any of
//      it stops the launch with one `[ferry/sandbox] E_SANDBOX_UNAVAILABLE:` line;
//   4. measure the workspace every few seconds with `du` and SIGKILL bwrap when it is over quota
//      (--die-with-parent then kills everything inside). The watcher runs outside the sandbox, so
//      the tool can neither see nor kill it.
// The transport spawns the shell as a process group leader; bwrap, slirp4netns and the watcher
// stay in that group, so killing the group stops all of it. bwrap's child calls setsid
// (--new-session) and leaves the group, but --die-with-parent takes it, and the pid namespace
// with it, when bwrap dies.
import type { BwrapCommandLine } from './bwrap-arguments.js';
import type { LaunchSpec } from './launch-spec.js';
import { type NetworkHelpers, SANDBOX_CIDR } from './sandbox-network.js';

const WRAPPER_SCRIPT = `bwrap=$1 cgroup=$2 workspace=$3 quota_kib=$4 interval=$5 count=$6 net=$7 slirp=$8 nsenter=$9
shift 9
ip=$1 userns=$2 cidr=$3 refused=$4
shift 4
options() {
  i=0
  while [ "$i" -lt "$count" ]; do printf '%s\\0' "$1"; shift; i=$((i + 1)); done
}
fail() {
  echo "[ferry/sandbox] E_SANDBOX_UNAVAILABLE: $1" >&2
  # The sandbox's first process first: it must never get past --block-fd.
  [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null
  [ -z "$child" ] || kill -KILL "$child" 2>/dev/null
  [ -z "$stack" ] || kill -KILL "$stack" 2>/dev/null
  [ -z "$dir" ] || rm -rf "$dir"
  exit 125
}
child= stack= dir= pid=
if [ "$net" = 1 ]; then
  dir=$(mktemp -d "\${TMPDIR:-/tmp}/ferry-net.XXXXXXXX") || fail "cannot make a directory for the network setup"
  mkfifo "$dir/info" "$dir/block" "$dir/ready" || fail "cannot make the network setup pipes"
fi
exec 3<&0
options "$@" | {
  # Both pipes are opened first, whatever fails later: an exit then reads as EOF on the other side.
  [ "$net" = 1 ] && exec 5>"$dir/info" 6<"$dir/block"
  if [ -n "$cgroup" ]; then
    echo 0 > "$cgroup/cgroup.procs" || { echo "[ferry/sandbox] cannot join the cgroup $cgroup" >&2; exit 125; }
  fi
  shift "$count"
  exec 4<&0 0<&3 3<&-
  [ "$net" = 1 ] && exec "$bwrap" --info-fd 5 --block-fd 6 --args 4 -- "$@"
  exec "$bwrap" --args 4 -- "$@"
} &
child=$!
exec 3<&- 0</dev/null
if [ "$net" = 1 ]; then
  exec 8<"$dir/info" 7>"$dir/block"
  while IFS= read -r line <&8; do
    case $line in *'"child-pid"'*) pid=$(printf '%s' "$line" | tr -cd '0-9'); break ;; esac
  done
  exec 8<&-
  [ -n "$pid" ] || fail "bubblewrap did not start (no child pid)"
  if [ "$userns" = 1 ]; then
    "$slirp" --configure --mtu=65520 --disable-host-loopback --cidr="$cidr" --ready-fd=9 --userns-path="/proc/$pid/ns/user" "$pid" tap0 9>"$dir/ready" >/dev/null 2>&1 &
  else
    "$slirp" --configure --mtu=65520 --disable-host-loopback --cidr="$cidr" --ready-fd=9 "$pid" tap0 9>"$dir/ready" >/dev/null 2>&1 &
  fi
  stack=$!
  # slirp4netns writes "1" with no newline, so read reports EOF while setting the value.
  ready=
  read -r ready <"$dir/ready"
  [ "$ready" = 1 ] || fail "slirp4netns could not attach the network"
  set -f
  for address in $refused; do
    if [ "$userns" = 1 ]; then
      "$nsenter" --target "$pid" --user --preserve-credentials --net "$ip" route add prohibit "$address" || fail "cannot refuse $address in the sandbox's network"
    else
      "$nsenter" --target "$pid" --net "$ip" route add prohibit "$address" || fail "cannot refuse $address in the sandbox's network"
    fi
  done
  set +f
  rm -rf "$dir"
  dir=
  printf 1 >&7
  exec 7>&-
fi
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
[ -z "$stack" ] || kill "$stack" 2>/dev/null
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
  /** The isolated network: its helpers, the host addresses to refuse, whether bwrap made a user namespace. */
  network?: { helpers: NetworkHelpers; refused: readonly string[]; userns: boolean };
  /** The wrapper's own environment (bwrap clears it for the tool). */
  env: Record<string, string>;
}

export function wrapperLaunch(options: WrapperOptions): LaunchSpec {
  const quotaKib = options.workspaceBytes === null ? 0 : Math.floor(options.workspaceBytes / 1024);
  const net = options.network;
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
      net ? '1' : '0',
      net?.helpers.slirp4netns ?? '',
      net?.helpers.nsenter ?? '',
      net?.helpers.ip ?? '',
      net?.userns ? '1' : '0',
      SANDBOX_CIDR,
      (net?.refused ?? []).join(' '),
      ...options.bwrap.options,
      ...options.bwrap.command,
    ],
    env: options.env,
    cwd: '/',
  };
}
