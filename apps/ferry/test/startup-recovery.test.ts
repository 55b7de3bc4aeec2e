// Startup recovery: the first file sweep, once Ferry listens, removes what a crash left of
// interrupted uploads (temp files older than the grace period) and logs one line saying so; a
// fresh one, perhaps another process's upload, stays.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';

let cwd: string;
let server: RunningServer | undefined;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'ferry-recovery-'));
});
afterAll(async () => {
  await server?.close();
  await rm(cwd, { recursive: true, force: true });
});

it('removes an old temp upload at start, keeps a fresh one, and logs one summary line', async () => {
  const tempDir = join(cwd, '.ferry', 'blobs', '.tmp');
  await mkdir(tempDir, { recursive: true });
  const old = join(tempDir, `${randomUUID()}.part`);
  const fresh = join(tempDir, `${randomUUID()}.part`);
  await writeFile(old, 'what a crash left');
  const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
  await utimes(old, twoHoursAgo, twoHoursAgo);
  await writeFile(fresh, 'an upload still under way');

  let logged: (line: Record<string, unknown>) => void = () => {};
  const recovery = new Promise<Record<string, unknown>>((resolve) => {
    logged = resolve;
  });
  server = await startServer({
    cwd,
    env: {},
    port: 0,
    logLevel: 'info',
    logStream: {
      write: (line: string) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (String(entry.msg).startsWith('startup recovery:')) logged(entry);
      },
    },
    onSandboxWarning: () => {},
  });
  const entry = await recovery;
  expect(entry).toMatchObject({
    level: 40,
    partials: 1,
    pending: 0,
    expired: 0,
    msg: 'startup recovery: 1 partial upload(s) removed (temp files, unfinished multipart uploads), 0 interrupted upload row(s) removed, 0 expired file(s) reclaimed',
  });
  expect(existsSync(old)).toBe(false);
  expect(existsSync(fresh)).toBe(true);
}, 60_000);
