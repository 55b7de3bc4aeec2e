// Runs a LaunchSpec the way the host's process transport does (detached: its own process group,
// stdin a pipe), collects its output, and checks that nothing of it survives. Also the loud
// failure every real-sandbox test starts with: never a skip.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { liveProcesses, processesWith } from '@ferry/test-helpers/processes';
import type { LaunchSpec, SandboxServer } from '../../src/launch-spec.js';
import { probeSandbox, type SandboxProbe } from '../../src/probe-sandbox.js';

export async function requireSandbox(): Promise<SandboxProbe> {
  const probe = await probeSandbox({ mode: 'required' });
  if (!probe.available) {
    throw new Error(
      `bubblewrap cannot run here, so the sandbox tests cannot run (they never skip): ${probe.reason}`,
    );
  }
  return probe;
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  pid: number;
  stdout(): string;
  stderr(): string;
  write(text: string): void;
  /** Closes stdin: how the transport asks a server to stop. */
  end(): void;
  exited: Promise<Ran>;
  /** What the transport's kill() does: SIGKILL to the whole process group. */
  killGroup(): void;
}

export function start(spec: LaunchSpec): Running {
  const child = spawn(spec.command, spec.args, {
    env: spec.env,
    cwd: spec.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  // A server that exits before reading its stdin makes writes fail with EPIPE: not a test failure.
  child.stdin.on('error', () => {});
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<Ran>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    pid: child.pid as number,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text) => child.stdin.write(text),
    end: () => child.stdin.end(),
    exited,
    killGroup: () => process.kill(-(child.pid as number), 'SIGKILL'),
  };
}

/** A server that is `/bin/sh -c <script>`: sandbox required, no network, unless `extra` says otherwise. */
export function shServer(script: string, extra: Partial<SandboxServer> = {}): SandboxServer {
  return {
    name: 'sh',
    command: '/bin/sh',
    args: ['-c', script],
    env: {},
    sandbox: 'required',
    network: false,
    ...extra,
  };
}

export async function run(spec: LaunchSpec, stdin = ''): Promise<Ran> {
  const running = start(spec);
  running.write(stdin);
  running.end();
  return running.exited;
}

/** Polls `list` every `intervalMs` until it is empty or `timeoutMs` passed; returns what is left. */
async function waitForEmpty(list: () => number[], timeoutMs: number, intervalMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = list();
  while (left.length > 0 && Date.now() < deadline) {
    await delay(intervalMs);
    left = list();
  }
  return left;
}

/** Waits (up to `timeoutMs`) until no live process has `marker` in its command line. */
export function waitForNone(marker: string, timeoutMs = 5000): Promise<number[]> {
  return waitForEmpty(() => processesWith(marker), timeoutMs, 50);
}

/**
 * A temp directory outside /tmp: the sandbox's private /tmp would hide anything under the host's
 * /tmp anyway, so tests that prove a path is hidden must put it elsewhere.
 */
export function hostTempDir(prefix: string): Promise<string> {
  return mkdtemp(`/var/tmp/${prefix}`);
}

/** Live (not zombie) members of a process group: what a killed or finished launch leaves behind. */
export function groupMembers(pgid: number): number[] {
  return liveProcesses(([, , group]) => Number(group) === pgid);
}

/** Waits (up to `timeoutMs`) until the process group is empty; returns what is left. */
export function waitForGroupGone(pgid: number, timeoutMs = 3000): Promise<number[]> {
  return waitForEmpty(() => groupMembers(pgid), timeoutMs, 20);
}

/**
 * A TCP listener on the host that answers `reply` and hangs up: what a sandboxed tool must not
 * reach. On '0.0.0.0' it is reachable through every address of the host.
 */
export async function hostListener(
  address: string,
  reply: string,
): Promise<{ server: Server; port: number }> {
  // A client that hangs up at once resets the connection: not an error of the test.
  const server = createServer((socket) => socket.on('error', () => {}).end(reply));
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return { server, port: (server.address() as { port: number }).port };
}
