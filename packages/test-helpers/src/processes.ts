import { readFileSync } from 'node:fs';
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
