// `ferry admin fsck` end to end: the real bin against a data directory (./.ferry, SQLite + local
// disk) whose file lost its blob behind Ferry's back.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type FsckReport, loadStorageConfig, openStorage } from '@ferry/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REPO_ROOT } from '../support/start-app.js';

const BIN = join(REPO_ROOT, 'apps/ferry/bin/ferry.mjs');
// Every run starts Node and tsx (a second or more under load).
const SLOW = 120_000;

let cwd: string;
let lost: { id: string; name: string };
let kept: { id: string; sha256: string };

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'ferry-fsck-cli-'));
  const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(cwd, '.ferry') }, env: {} }));
  try {
    const owner = await storage.files.ensureUser('dev');
    kept = await storage.files.put(owner, 'kept.txt', Readable.from([Buffer.from('still here\n')]));
    lost = await storage.files.put(owner, 'lost.csv', Readable.from([Buffer.from('a,b\n1,2\n')]));
    await unlink(
      join(cwd, '.ferry', 'blobs', ...(await storage.files.stat(owner, { id: lost.id })).blobKey.split('/')),
    );
  } finally {
    await storage.close();
  }
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function ferry(args: string[], dir = cwd): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      // No FERRY_* from the environment running the tests: ./.ferry is the data directory.
      { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('ferry admin fsck', () => {
  it(
    'reports the row without a blob and exits 6; --repair removes it and exits 0; then it is consistent',
    async () => {
      const check = await ferry(['admin', 'fsck']);
      expect(check.stderr).toBe('');
      expect(check.code).toBe(EXIT.inconsistent);
      expect(check.stdout).toContain('Checked 2 file row(s) and 1 blob(s); grace period 60 min.');
      expect(check.stdout).toContain('Rows without a blob (files that cannot be read): 1\n');
      expect(check.stdout).toContain(`  ${lost.id}  dev  lost.csv (v1)\n`);
      expect(check.stdout).toContain('Blobs without a row: 0\n');
      expect(check.stdout).toContain('1 problem(s) found; `ferry admin fsck --repair` removes them.');

      const json = await ferry(['admin', 'fsck', '--json']);
      expect(json.code).toBe(EXIT.inconsistent);
      const report = JSON.parse(json.stdout) as FsckReport;
      expect(report.consistent).toBe(false);
      expect(report.missingBlobs.items.map((item) => [item.id, item.name])).toEqual([[lost.id, 'lost.csv']]);

      const repair = await ferry(['admin', 'fsck', '--repair']);
      expect(repair.code).toBe(EXIT.ok);
      expect(repair.stdout).toContain('Rows without a blob (files that cannot be read): 1, 1 removed\n');
      expect(repair.stdout).toContain('Repaired: 1 problem(s) removed; consistent now.');

      const again = await ferry(['--json', 'admin', 'fsck']);
      expect(again.code).toBe(EXIT.ok);
      const clean = JSON.parse(again.stdout) as FsckReport;
      expect(clean).toMatchObject({ consistent: true, scanned: { rows: 1, blobs: 1 } });
      expect(clean.missingBlobs.found).toBe(0);

      // The file that was fine reads back unchanged.
      const storage = await openStorage(
        loadStorageConfig({ file: { dataDir: join(cwd, '.ferry') }, env: {} }),
      );
      try {
        const owner = await storage.files.ensureUser('dev');
        expect((await storage.files.list(owner)).items.map((file) => file.name)).toEqual(['kept.txt']);
        const { file } = await storage.files.get(owner, { id: kept.id });
        expect(file.sha256).toBe(kept.sha256);
      } finally {
        await storage.close();
      }
    },
    SLOW,
  );

  it(
    'refuses to run where there is no catalog, rather than create an empty one',
    async () => {
      const empty = await mkdtemp(join(tmpdir(), 'ferry-fsck-empty-'));
      try {
        const run = await ferry(['admin', 'fsck', '--repair'], empty);
        expect(run.code).toBe(EXIT.toolFailed);
        expect(run.stderr).toBe(
          `ferry: no catalog at ${join(empty, '.ferry', 'catalog.db')}: is this Ferry's data directory? (dataDir, FERRY_DATA_DIR or --config)\n`,
        );
        expect(existsSync(join(empty, '.ferry', 'catalog.db'))).toBe(false);
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
