// What fsck must find and repair, run on each backend pair (fsck-local.test.ts: SQLite + local disk,
// fsck-scale.test.ts: PostgreSQL + s3rver). Files are stored through a real FileStore; then the
// backends are damaged behind its back, as a crash or an operator would.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobDriver } from '../../src/blob/driver.js';
import type { Catalog } from '../../src/catalog/types.js';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { checkStorage, type FsckReport } from '../../src/maintenance/fsck.js';
import { createFileStore, type FileStore } from '../../src/store/file-store.js';
import { createTokenSigner } from '../../src/tokens/token-signer.js';
import { pseudoRandomBytes, readAll, sha256, streamOfBuffer } from '../support/streams.js';

const HOUR = 3_600_000;

export interface FsckBackend {
  blobs: BlobDriver;
  catalog: Catalog;
  /** A directory for the FileStore's config (dataDir). */
  dir: string;
  /** Stores `bytes` under `key` straight through the driver, last written `ageMs` ago. */
  addBlob(key: string, bytes: Buffer, ageMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface FsckSuiteExtras {
  /** Leaves the leftover of an interrupted put, started `ageMs` ago; returns the id fsck reports it by. */
  addPartialUpload(backend: FsckBackend, ageMs: number): Promise<string>;
  /** Whether a partial upload added above is still there, asked of the backend itself. */
  partialUploadExists(backend: FsckBackend, id: string): Promise<boolean>;
  /**
   * Set when the backend cannot list partial uploads: what the report's one warning must say.
   * Partial uploads are then neither found nor removed.
   */
  partialWarning?: RegExp;
}

export function describeFsck(
  name: string,
  makeBackend: () => Promise<FsckBackend>,
  extras: FsckSuiteExtras,
): void {
  describe(`fsck: ${name}`, () => {
    let backend: FsckBackend;
    let files: FileStore;
    let owner: string;

    beforeEach(async () => {
      backend = await makeBackend();
      files = createFileStore({
        blobs: backend.blobs,
        catalog: backend.catalog,
        config: loadStorageConfig({ file: { dataDir: backend.dir }, env: {} }),
        tokens: createTokenSigner({ keys: [{ id: 'k1', secret: 'x'.repeat(32) }], activeKeyId: 'k1' }),
      });
      owner = await files.ensureUser('alice');
    });
    afterEach(async () => {
      await backend?.close();
    });

    const store = async (fileName: string, seed: number) => {
      const bytes = pseudoRandomBytes(40_000 + seed, seed);
      const file = await files.put(owner, fileName, streamOfBuffer(bytes));
      expect(file.sha256).toBe(sha256(bytes));
      return file;
    };
    const fsck = (repair = false): Promise<FsckReport> =>
      checkStorage({ blobs: backend.blobs, catalog: backend.catalog, repair, graceMs: HOUR });

    it('finds a row without its blob, an old stray blob and an old partial upload; leaves fresh ones; repairs', async () => {
      const kept = [await store('report.csv', 1), await store('photo.png', 2)];
      const lost = await store('lost.pdf', 3);
      await backend.blobs.delete(lost.blobKey);
      const strayKey = `users/${owner}/00000000-0000-4000-8000-00000000dead`;
      await backend.addBlob(strayKey, Buffer.from('nobody owns me'), 2 * HOUR);
      const freshKey = `users/${owner}/00000000-0000-4000-8000-00000000f00d`;
      await backend.addBlob(freshKey, Buffer.from('an upload on another instance, still committing'), 0);
      const partialId = await extras.addPartialUpload(backend, 2 * HOUR);
      const freshPartialId = await extras.addPartialUpload(backend, 0);

      const found = await fsck();
      expect(found.consistent).toBe(false);
      expect(found.scanned).toEqual({ rows: 3, blobs: 4 });
      expect(found.missingBlobs).toEqual({
        found: 1,
        repaired: 0,
        left: 1,
        items: [
          { id: lost.id, owner, username: 'alice', name: 'lost.pdf', version: 1, blobKey: lost.blobKey },
        ],
      });
      expect(found.orphanBlobs).toMatchObject({ found: 1, repaired: 0, left: 1 });
      expect(found.orphanBlobs.items).toEqual([{ key: strayKey, size: 14, modifiedAt: expect.any(String) }]);
      expect(found.recentBlobs).toBe(1);
      if (extras.partialWarning) {
        expect(found.partialUploads).toMatchObject({ found: 0, left: 0, items: [] });
      } else {
        expect(found.partialUploads).toMatchObject({ found: 1, repaired: 0, left: 1 });
        expect(found.partialUploads.items.map((item) => item.id)).toEqual([partialId]);
      }
      expectWarnings(found, extras.partialWarning);
      // A check alone changes nothing.
      expect(await backend.blobs.stat(strayKey)).not.toBeNull();
      expect(await extras.partialUploadExists(backend, partialId)).toBe(true);
      expect((await files.list(owner)).total).toBe(3);

      const repaired = await fsck(true);
      expect(repaired.consistent).toBe(true);
      expect(repaired.missingBlobs).toMatchObject({ found: 1, repaired: 1, left: 0 });
      expect(repaired.orphanBlobs).toMatchObject({ found: 1, repaired: 1, left: 0 });
      if (!extras.partialWarning) {
        expect(repaired.partialUploads).toMatchObject({ found: 1, repaired: 1, left: 0 });
      }
      expectWarnings(repaired, extras.partialWarning);
      // The lost file is gone from listings, the stray blob from the store; fresh work is untouched.
      expect((await files.list(owner)).items.map((file) => file.name).sort()).toEqual([
        'photo.png',
        'report.csv',
      ]);
      await expect(files.stat(owner, { id: lost.id })).rejects.toMatchObject({ code: 'E_FILE_NOT_FOUND' });
      expect(await backend.blobs.stat(strayKey)).toBeNull();
      expect(await backend.blobs.stat(freshKey)).not.toBeNull();
      expect(await extras.partialUploadExists(backend, partialId)).toBe(extras.partialWarning !== undefined);
      expect(await extras.partialUploadExists(backend, freshPartialId)).toBe(true);

      const again = await fsck();
      expect(again.consistent).toBe(true);
      expect([again.missingBlobs.found, again.orphanBlobs.found, again.partialUploads.found]).toEqual([
        0, 0, 0,
      ]);
      expect(again.scanned.rows).toBe(2);
      for (const file of kept) {
        const { stream } = await files.get(owner, { id: file.id });
        expect(sha256(await readAll(stream))).toBe(file.sha256);
      }
    });

    it('keeps the first maxItems findings and counts them all; pages through rows and blobs in batches', async () => {
      for (let i = 0; i < 5; i++) await store(`file-${i}.bin`, 10 + i);
      for (let i = 0; i < 7; i++) {
        await backend.addBlob(`users/${owner}/stray-${i}`, Buffer.from(`stray ${i}`), 2 * HOUR);
      }
      const report = await checkStorage({
        blobs: backend.blobs,
        catalog: backend.catalog,
        graceMs: HOUR,
        maxItems: 3,
        batchSize: 2,
        concurrency: 2,
      });
      expect(report.scanned).toEqual({ rows: 5, blobs: 12 });
      expect(report.missingBlobs.found).toBe(0);
      expect(report.orphanBlobs.found).toBe(7);
      expect(report.orphanBlobs.items).toHaveLength(3);
      expect(report.maxItems).toBe(3);
    });

    it('a catalog without any file row deletes no blob on repair: the wrong database is likelier', async () => {
      await backend.addBlob(`users/${owner}/old-1`, Buffer.from('one'), 2 * HOUR);
      const report = await fsck(true);
      expect(report.orphanBlobs).toMatchObject({ found: 1, repaired: 0, left: 1 });
      expect(report.consistent).toBe(false);
      expect(report.warnings).toContainEqual(
        expect.stringMatching(/no file rows at all: 1 blob\(s\) not deleted/),
      );
      expect(await backend.blobs.stat(`users/${owner}/old-1`)).not.toBeNull();
    });
  });
}

function expectWarnings(report: FsckReport, partialWarning: RegExp | undefined): void {
  if (partialWarning) {
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(partialWarning);
  } else {
    expect(report.warnings).toEqual([]);
  }
}
