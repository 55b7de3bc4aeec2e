import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * True when `pid` no longer runs: `kill(pid, 0)` fails with ESRCH, or the process is a zombie
 * (killed, waiting to be reaped by whatever adopted it; in a container PID 1 may never do that).
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Waits until `pid` is gone. Only for processes this test process cannot get an exit event for
 * (grandchildren); polls every 10 ms, fails after `timeoutMs`.
 */
export async function waitUntilGone(pid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!isGone(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running after ${timeoutMs} ms`);
    await delay(10);
  }
}

/**
 * Live (not zombie) processes other than this one that `match` picks, given the fields of their
 * /proc stat after the command name (`[state, ppid, pgrp, …]`) and their command line (NUL
 * separated, read only when asked for).
 */
export function liveProcesses(match: (stat: string[], cmdline: () => string) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const stat = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (stat[0] === 'Z') continue;
      if (match(stat, () => readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Live processes whose command line contains `marker`, or (`argv0`) whose first argument starts
 * with it: what `exec -a <name>` sets.
 */
export function processesWith(marker: string, match: 'anywhere' | 'argv0' = 'anywhere'): number[] {
  return liveProcesses((_stat, cmdline) =>
    match === 'argv0' ? cmdline().startsWith(marker) : cmdline().includes(marker),
  );
}
