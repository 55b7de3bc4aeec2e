import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog, PendingFile } from '../../src/catalog/types.js';
import { describeCatalog } from './catalog-suite.js';
import { dialectEnabled } from './dialects.js';

const FINALIZE_WORKER = join(import.meta.dirname, 'sqlite-finalize-worker.ts');
const RESERVE_WORKER = join(import.meta.dirname, 'sqlite-reserve-worker.ts');
const TSX = join(import.meta.dirname, '../../../../node_modules/.bin/tsx');

describe.skipIf(!dialectEnabled('sqlite'))('sqlite (FERRY_TEST_DIALECTS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-catalog-'));
  // A nested path also checks that missing parent directories are created.
  const filename = join(dir, 'nested', 'catalog.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describeCatalog(
    'sqlite',
    () => createSqliteCatalog({ filename }),
    () => {
      it('puts the database in WAL mode', () => {
        const raw = new Database(filename, { readonly: true });
        try {
          expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
          const tables = raw
            .prepare("select name from sqlite_master where type = 'table' order by name")
            .pluck()
            .all();
          expect(tables).toEqual(expect.arrayContaining(['files', 'users']));
        } finally {
          raw.close();
        }
      });
    },
  );

  /** Runs `worker` in 4 processes at once, each on a quarter of `ids`; returns their answers. */
  async function inFourProcesses(worker: string, owner: string, ids: string[]): Promise<unknown[]> {
    const workers = [0, 1, 2, 3].map((w) => {
      const mine = ids.filter((_, i) => i % 4 === w);
      const child = spawn(TSX, ['--conditions=ferry-source', worker, filename, owner, mine.join(',')], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      // Listen for the exit now: a worker may be gone before we get to it.
      return { child, lines, exited: once(child, 'exit') };
    });
    for (const { lines } of workers) expect((await lines.next()).value).toBe('ready');
    for (const { child } of workers) child.stdin.write('go\n');
    const answers: unknown[] = [];
    for (const { lines, exited } of workers) {
      answers.push(JSON.parse((await lines.next()).value as string));
      expect((await exited)[0]).toBe(0);
    }
    return answers;
  }

  const pendingRows = async (catalog: Catalog, owner: string, name: string) => {
    const pending: PendingFile[] = [];
    for (let i = 0; i < 20; i++) {
      pending.push(await catalog.insertPending({ owner, name, mime: 'text/plain', source: 'generated' }));
    }
    return pending.map((p) => p.id);
  };

  it('finalizes 20 pending rows from 4 processes at once into versions 1..20', async () => {
    const catalog = await createSqliteCatalog({ filename });
    try {
      const owner = await catalog.ensureUser('multi-process');
      const ids = await pendingRows(catalog, owner, 'shared.txt');
      const versions = (await inFourProcesses(FINALIZE_WORKER, owner, ids)).flat() as number[];
      expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect((await catalog.versions(owner, 'shared.txt')).map((f) => f.version)).toHaveLength(20);
    } finally {
      await catalog.close();
    }
  });

  it('grants 5 of 20 concurrent 4 MiB reservations from 4 processes under a 20 MiB quota', async () => {
    const catalog = await createSqliteCatalog({ filename });
    try {
      const owner = await catalog.ensureUser('multi-process-quota');
      const ids = await pendingRows(catalog, owner, 'upload.bin');
      const granted = (await inFourProcesses(RESERVE_WORKER, owner, ids)) as number[];
      expect(granted.reduce((sum, n) => sum + n, 0)).toBe(5);
    } finally {
      await catalog.close();
    }
  });

  it('requires a filename and works in memory', async () => {
    await expect(createSqliteCatalog({ filename: '' })).rejects.toThrow(/\[sqlite\].*filename/);
    const memory = await createSqliteCatalog({ filename: ':memory:' });
    try {
      const owner = await memory.ensureUser('solo');
      expect(await memory.usage(owner)).toEqual({ bytes: 0, count: 0 });
    } finally {
      await memory.close();
    }
  });
});
