// Builds a FileStore over one blob driver × catalog combination, with a movable clock, and
// exposes the parts so tests can check what really landed in the backends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema } from '@ferry/test-helpers/postgres';
import { startS3Server } from '@ferry/test-helpers/s3-server';
import type { BlobDriver } from '../../src/blob/driver.js';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createS3BlobDriver } from '../../src/blob/s3.js';
import { createPostgresCatalog } from '../../src/catalog/postgres.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog } from '../../src/catalog/types.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import type { StorageConfigInput } from '../../src/config/schema.js';
import { createFileStore, type FileStore } from '../../src/store/file-store.js';
import { createTokenSigner } from '../../src/tokens/token-signer.js';

export type BlobKind = 'local' | 's3';
export type CatalogKind = 'sqlite' | 'postgres';

export interface Harness {
  files: FileStore;
  blobs: BlobDriver;
  catalog: Catalog;
  /** Moves the clock of the FileStore and its catalog. */
  clock: { now: Date; advanceHours(hours: number): void; advanceMs(ms: number): void };
  /** Every key the blob driver holds under `users/`. */
  blobKeys(): Promise<string[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: StorageConfigInput;
  pendingGraceMs?: number;
}

export async function createHarness(blob: BlobKind, catalogKind: CatalogKind, options: HarnessOptions = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-store-'));
  const cleanups: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  try {
    let blobs: BlobDriver;
    if (blob === 'local') {
      blobs = createLocalBlobDriver({ root: join(dir, 'blobs') });
    } else {
      const s3 = await startS3Server();
      cleanups.push(s3.stop);
      blobs = createS3BlobDriver({
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        region: s3.region,
        credentials: s3.credentials,
        forcePathStyle: true,
      });
    }
    cleanups.push(async () => blobs.close?.());

    // One clock for both, as openStorage wires them: the catalog stamps rows and decides what has
    // expired by it, the FileStore computes expiries and sweeps by it.
    const clock = {
      now: new Date('2026-11-23T12:00:00Z'),
      advanceHours(hours: number) {
        clock.now = new Date(clock.now.getTime() + hours * 3_600_000);
      },
      advanceMs(ms: number) {
        clock.now = new Date(clock.now.getTime() + ms);
      },
    };
    const now = () => clock.now;
    let catalog: Catalog;
    if (catalogKind === 'sqlite') {
      catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db'), now });
    } else {
      const schema = await createTestSchema('ferry_store');
      cleanups.push(schema.drop);
      catalog = await createPostgresCatalog({ connectionString: schema.url, schema: schema.schema, now });
    }
    cleanups.push(() => catalog.close());

    const config = loadStorageConfig({ file: { dataDir: dir, ...options.config }, env: {} });
    const files = createFileStore({
      blobs,
      catalog,
      config,
      tokens: createTokenSigner({
        keys: [{ id: 'k1', secret: 'x'.repeat(32) }],
        activeKeyId: 'k1',
        now: () => clock.now.getTime(),
      }),
      now,
      ...(options.pendingGraceMs === undefined ? {} : { pendingGraceMs: options.pendingGraceMs }),
    });
    const harness: Harness = {
      files,
      blobs,
      catalog,
      clock,
      blobKeys: async () => {
        const keys: string[] = [];
        if (blobs.list) for await (const key of blobs.list('users/')) keys.push(key);
        return keys.sort();
      },
      close: async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
      },
    };
    return harness;
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}

export const COMBINATIONS: readonly [BlobKind, CatalogKind][] = [
  ['local', 'sqlite'],
  ['local', 'postgres'],
  ['s3', 'sqlite'],
  ['s3', 'postgres'],
];
