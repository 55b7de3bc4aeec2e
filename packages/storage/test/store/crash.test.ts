// A FileStore upload whose process is SIGKILLed mid-way: afterwards no catalog row is visible,
// no blob sits under a real key, and the sweeper removes the pending row and the temp file.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog } from '../../src/catalog/types.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { createFileStore, type FileStore } from '../../src/store/file-store.js';
import { createTokenSigner } from '../../src/tokens/token-signer.js';
import { killHard, spawnCrashWriter } from '../support/spawn-crash-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-crash-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function openStore(): Promise<{ files: FileStore; catalog: Catalog }> {
  const catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db') });
  const files = createFileStore({
    blobs: createLocalBlobDriver({ root: join(dir, 'blobs') }),
    catalog,
    config: loadStorageConfig({ file: { dataDir: dir }, env: {} }),
    tokens: createTokenSigner({ keys: [{ id: 'k', secret: 'k'.repeat(32) }], activeKeyId: 'k' }),
    pendingGraceMs: 0,
  });
  return { files, catalog };
}

it('a FileStore writer killed mid-upload leaves no visible file, and the sweeper clears what it left', async () => {
  const child = await spawnCrashWriter(['store', dir, 'carol']);
  await killHard(child);
  expect(child.signalCode).toBe('SIGKILL');

  const { files, catalog } = await openStore();
  try {
    const owner = await files.ensureUser('carol');
    expect(await files.list(owner, { allVersions: true })).toEqual({ items: [], total: 0 });
    expect(await files.resolve(owner, 'big.bin')).toBeUndefined();
    expect(await files.usage(owner)).toMatchObject({ bytes: 0, count: 0 });
    // What the crash left: one pending row and one temp file, nothing under users/.
    expect((await files.stats()).pending).toBe(1);
    expect(await readdir(join(dir, 'blobs', '.tmp'))).toHaveLength(1);
    const underUsers = await readdir(join(dir, 'blobs', 'users'), { recursive: true, withFileTypes: true });
    expect(underUsers.filter((entry) => entry.isFile())).toEqual([]);

    const swept = await files.sweep();
    expect(swept).toMatchObject({ expired: 0, pending: 1, partials: 1 });
    expect((await files.stats()).pending).toBe(0);
    expect(await readdir(join(dir, 'blobs', '.tmp'))).toEqual([]);
    expect(await catalog.stalePending(new Date(Date.now() + 60_000))).toEqual([]);
  } finally {
    await files.close();
  }
});
