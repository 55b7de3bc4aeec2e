// A real `ferry start` in a child process, for faults that kill a whole instance: Node runs
// src/main.ts directly (with tsx and the ferry-source condition, as bin/run-ferry.mjs does, but
// without that launcher between), so the SIGKILL a test sends reaches Ferry itself. Its config
// file and data directory live in `dir`; a restart reuses both, as a supervisor restarting the
// same unit does.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { V8_OPTIONS } from '../../bin/run-ferry.mjs';
import { REPO_ROOT } from './start-app.js';

const MAIN = join(REPO_ROOT, 'apps/ferry/src/main.ts');
const TSX = pathToFileURL(createRequire(join(REPO_ROOT, 'apps/ferry/package.json')).resolve('tsx')).href;
const START_TIMEOUT_MS = 30_000;

export interface FerryChild {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL: no drain, no cleanup, as an OOM kill or a lost machine. Resolves once it is gone. */
  kill(): Promise<void>;
}

export interface FerryChildOptions {
  /** Working directory: `ferry.config.json` is written there and the data directory is below it. */
  dir: string;
  /** The config file's content. */
  config: Record<string, unknown>;
  env?: Record<string, string>;
}

/** Writes the config and starts `ferry start --port 0`; resolves once it listens. */
export async function startFerryChild(options: FerryChildOptions): Promise<FerryChild> {
  await writeFile(join(options.dir, 'ferry.config.json'), JSON.stringify(options.config, null, 2));
  const child = spawn(
    process.execPath,
    [...V8_OPTIONS, '--import', TSX, '--conditions=ferry-source', MAIN, 'start', '--port', '0'],
    {
      cwd: options.dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`ferry start did not listen within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /Ferry is listening on (http:\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`ferry start exited before listening:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    pid: child.pid as number,
    child,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Every live process below `pid` (children, grandchildren …), found through /proc's parent ids. */
export function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const line of readProcStats()) parentOf.set(line.pid, line.ppid);
  const found: number[] = [];
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        found.push(child);
        grew = true;
      }
    }
  }
  return found;
}

function readProcStats(): { pid: number; ppid: number }[] {
  const stats: { pid: number; ppid: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      stats.push({ pid: Number(entry), ppid: Number(fields[1]) });
    } catch {
      // Gone meanwhile.
    }
  }
  return stats;
}

/** The command line of `pid`, spaces for NULs; '' when it is gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
