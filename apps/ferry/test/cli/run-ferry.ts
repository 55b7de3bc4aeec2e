// Runs the real `ferry` bin (bin/ferry.mjs → tsx → src/main.ts) as a user would, with stdin as a
// pipe the test writes to, and lets a test wait for text on stderr (a prompt) before it answers.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/start-app.js';

const BIN = join(REPO_ROOT, 'apps/ferry/bin/ferry.mjs');

export interface FerryRun {
  child: ChildProcess;
  /** Resolves once stderr (everything so far) matches. */
  waitForStderr(pattern: RegExp): Promise<string>;
  write(text: string): void;
  /** Ends stdin: the end of input. */
  end(text?: string): void;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

export interface FerryOptions {
  cwd: string;
  /** Written to stdin, which is then closed; `undefined` leaves stdin open for write()/end(). */
  input?: string;
}

export function startFerry(url: string, args: string[], options: FerryOptions): FerryRun {
  const child = spawn(process.execPath, [BIN, '--url', url, ...args], {
    cwd: options.cwd,
    env: { ...process.env, FERRY_URL: '', FERRY_USER: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve(text: string): void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(stderr)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(stderr);
      }
    }
  });
  // A closed stdin (the child exited) must not fail the test with EPIPE.
  child.stdin?.on('error', () => {});
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      for (const waiter of waiters.splice(0)) waiter.resolve(stderr);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  return {
    child,
    waitForStderr: (pattern) =>
      pattern.test(stderr)
        ? Promise.resolve(stderr)
        : new Promise((resolve) => waiters.push({ pattern, resolve })),
    write: (text) => child.stdin?.write(text),
    end: (text) => child.stdin?.end(text),
    done,
  };
}

/** Runs `ferry <args>` with `input` on stdin (closed at once when not given) to the end. */
export function ferry(
  url: string,
  args: string[],
  options: { cwd: string; input?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return startFerry(url, args, { cwd: options.cwd, input: options.input ?? '' }).done;
}
