// `ferry files put a b c`: every file gets its own outcome. One refused by Ferry (too large, over
// the quota, a name with nothing usable) or missing on disk does not stop the others; each error is
// reported with its file, and the exit code is non-zero when any failed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type FileJson, http, startTestApp, type TestApp } from '../support/start-app.js';
import { ferry } from './run-ferry.js';

const MIB = 1024 * 1024;
const SLOW = 120_000;

let t: TestApp;
let work: string;

beforeAll(async () => {
  // 1 MiB per file, 2 MiB in all: room for the quota case below.
  t = await startTestApp({ storage: { max_file_size_mb: 1, user_quota_mb: 2 }, servers: {} });
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-put-'));
  await writeFile(join(work, 'a.csv'), 'k,v\n1,2\n');
  await writeFile(join(work, 'big.bin'), Buffer.alloc(MIB + 1, 7));
  await writeFile(join(work, 'c.txt'), 'third');
  await writeFile(join(work, '...'), 'a name of only dots');
  await writeFile(join(work, 'half-1.bin'), Buffer.alloc(0.7 * MIB, 1));
  await writeFile(join(work, 'half-2.bin'), Buffer.alloc(0.7 * MIB, 2));
  await writeFile(join(work, 'half-3.bin'), Buffer.alloc(0.7 * MIB, 3));
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

async function stored(): Promise<Map<string, number>> {
  const listed = (await http(t.url, '/api/files?allVersions=true&limit=1000')).json<{ items: FileJson[] }>();
  return new Map(listed.items.map((file) => [file.name, file.size]));
}

async function clear(): Promise<void> {
  const listed = (await http(t.url, '/api/files?allVersions=true&limit=1000')).json<{ items: FileJson[] }>();
  for (const file of listed.items) await http(t.url, `/api/files/${file.id}`, { method: 'DELETE' });
}

describe('ferry files put', () => {
  it(
    'uploads the rest after a file that is too large, a missing one and a bad name; exit 4',
    async () => {
      await clear();
      const result = await ferry(t.url, ['files', 'put', 'a.csv', 'big.bin', 'nope.csv', '...', 'c.txt'], {
        cwd: work,
      });
      expect(result.code).toBe(EXIT.refused);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^[0-9a-f-]{36} {2}a\.csv \(v1, 8 B\)$/);
      expect(lines[1]).toMatch(/^[0-9a-f-]{36} {2}c\.txt \(v1, 5 B\)$/);
      expect(result.stderr).toMatch(/error: big\.bin: .*\(E_FILE_TOO_LARGE\)/);
      expect(result.stderr).toContain('error: nope.csv: No such file: nope.csv');
      expect(result.stderr).toMatch(/error: \.\.\.: .*\(E_INVALID_INPUT\)/);
      expect(result.stderr).toContain('2 of 5 files uploaded, 3 failed');
      expect(await stored()).toEqual(
        new Map([
          ['a.csv', 8],
          ['c.txt', 5],
        ]),
      );
    },
    SLOW,
  );

  it(
    '--json lists the stored files and each failure with its code',
    async () => {
      await clear();
      const result = await ferry(t.url, ['--json', 'files', 'put', 'big.bin', 'a.csv'], { cwd: work });
      expect(result.code).toBe(EXIT.refused);
      const body = JSON.parse(result.stdout) as {
        files: { name: string; size: number }[];
        failed: { path: string; code?: string; exitCode: number; error: string }[];
      };
      expect(body.files.map((f) => [f.name, f.size])).toEqual([['a.csv', 8]]);
      expect(body.failed).toEqual([
        expect.objectContaining({ path: 'big.bin', code: 'E_FILE_TOO_LARGE', exitCode: EXIT.refused }),
      ]);
      expect(await stored()).toEqual(new Map([['a.csv', 8]]));
    },
    SLOW,
  );

  it(
    'over the quota: that file fails (E_QUOTA_EXCEEDED), the smaller ones after it still go in',
    async () => {
      await clear();
      const result = await ferry(t.url, ['files', 'put', 'half-1.bin', 'half-2.bin', 'half-3.bin', 'c.txt'], {
        cwd: work,
      });
      expect(result.code).toBe(EXIT.refused);
      expect(result.stderr).toMatch(/error: half-3\.bin: .*\(E_QUOTA_EXCEEDED\)/);
      expect(result.stderr).toContain('3 of 4 files uploaded, 1 failed');
      const files = await stored();
      expect([...files.keys()].sort()).toEqual(['c.txt', 'half-1.bin', 'half-2.bin']);
    },
    SLOW,
  );

  it(
    'all ok: exit 0, no summary line; a missing file alone exits 2',
    async () => {
      await clear();
      const ok = await ferry(t.url, ['files', 'put', 'a.csv', 'c.txt'], { cwd: work });
      expect(ok.code, ok.stderr).toBe(EXIT.ok);
      expect(ok.stderr).not.toContain('failed');
      const missing = await ferry(t.url, ['files', 'put', 'nope.csv'], { cwd: work });
      expect(missing.code).toBe(EXIT.usage);
      expect(missing.stderr).toContain('error: nope.csv: No such file');
    },
    SLOW,
  );

  it(
    'Ferry unreachable: exit 3, every file reported, the rest not tried',
    async () => {
      const result = await ferry('http://127.0.0.1:1', ['files', 'put', 'a.csv', 'c.txt'], { cwd: work });
      expect(result.code).toBe(EXIT.unreachable);
      expect(result.stderr).toContain('error: a.csv: Cannot reach Ferry');
      expect(result.stderr).toContain('error: c.txt: not uploaded: Ferry is not reachable');
    },
    SLOW,
  );
});
