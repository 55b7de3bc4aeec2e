// One Ferry per data directory: a second lock is refused with who holds it, in this process and
// from another one, and a holder that dies (SIGKILL: no cleanup runs) leaves nothing stale.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_INFO_FILE, lockDataDir } from '../src/data-dir-lock.js';

const LOCK_MODULE = fileURLToPath(new URL('../src/data-dir-lock.ts', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Another process that takes the lock of `dataDir`, says `locked` on stdout, and waits. */
async function holder(dataDir: string): Promise<ChildProcess> {
  const script = join(dir, `hold-${Math.random().toString(36).slice(2)}.mts`);
  await writeFile(
    script,
    `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};\n` +
      `const lock = lockDataDir(${JSON.stringify(dataDir)});\n` +
      `lock.setUrl('http://127.0.0.1:4242');\n` +
      // Nothing references the lock once the script's top level has run, and the collector runs
      // then: a collected connection must not let the lock go (better-sqlite3 closes it).
      `setTimeout(() => { globalThis.gc(); process.stdout.write('locked\\n'); }, 0);\n` +
      `setInterval(() => {}, 1000);\n`,
  );
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--conditions=ferry-source', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

/**
 * Tries the lock from a fresh process and answers what it printed: `ok` or the refusal. A fresh
 * process, because this test process has opened and closed many SQLite files: SQLite keys its
 * per-process lock table by inode, and a recycled inode of a file a leaked connection still holds
 * would make this process believe it holds the lock already.
 */
async function tryLock(dataDir: string): Promise<string> {
  const script = join(dir, `try-${Math.random().toString(36).slice(2)}.mts`);
  await writeFile(
    script,
    `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};\n` +
      `try { lockDataDir(${JSON.stringify(dataDir)}).release(); process.stdout.write('ok'); }\n` +
      `catch (error) { process.stdout.write(error.message); }\n`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=ferry-source', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
  return out;
}

describe('lockDataDir', () => {
  it('refuses a second lock in the same process, naming the directory and the holder; released, it can be taken again', () => {
    const dataDir = join(dir, 'same-process');
    const first = lockDataDir(dataDir);
    first.setUrl('http://127.0.0.1:8787');
    let message = '';
    try {
      lockDataDir(dataDir);
    } catch (error) {
      message = (error as Error).message;
      expect(error).toMatchObject({ code: 'E_CONFLICT', details: { data_dir: dataDir, pid: process.pid } });
    }
    expect(message).toContain(
      `The data directory ${dataDir} is in use by another Ferry (pid ${process.pid}, http://127.0.0.1:8787`,
    );
    expect(message).toMatch(/scale mode: a PostgreSQL catalog \(FERRY_DATABASE_URL\) and S3 blobs/);
    first.release();
    first.release();
    expect(existsSync(join(dataDir, DATA_DIR_LOCK_INFO_FILE))).toBe(false);
    lockDataDir(dataDir).release();
  });

  it('refuses while another process holds it, and is free once that process is killed', async () => {
    const dataDir = join(dir, 'other-process');
    const child = await holder(dataDir);
    try {
      expect(await tryLock(dataDir)).toMatch(
        new RegExp(`in use by another Ferry \\(pid ${child.pid}, http://127\\.0\\.0\\.1:4242`),
      );
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    // No cleanup ran in the killed process: the kernel dropped the lock, the stale note is ignored.
    expect(existsSync(join(dataDir, DATA_DIR_LOCK_INFO_FILE))).toBe(true);
    expect(await tryLock(dataDir)).toBe('ok');
  });
});
