// fsck on the embedded default: SQLite catalog and local disk blobs.
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobDriver } from '../../src/blob/local.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import { streamOfBuffer } from '../support/streams.js';
import { describeFsck, type FsckBackend } from './fsck-suite.js';

/** Sets a file's times to `ageMs` ago, as a crash that long ago would have left them. */
async function age(path: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  await utimes(path, then, then);
}

describeFsck(
  'sqlite + local disk',
  async (): Promise<FsckBackend> => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-fsck-'));
    const root = join(dir, 'blobs');
    const blobs = createLocalBlobDriver({ root });
    const catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db') });
    return {
      blobs,
      catalog,
      dir,
      async addBlob(key, bytes, ageMs) {
        await blobs.put(key, streamOfBuffer(bytes));
        await age(join(root, ...key.split('/')), ageMs);
      },
      async close() {
        await catalog.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  {
    // What a put killed mid-write leaves (local.ts): `<root>/.tmp/<uuid>.part`.
    async addPartialUpload(backend, ageMs) {
      const tempDir = join(backend.dir, 'blobs', '.tmp');
      await mkdir(tempDir, { recursive: true });
      const id = `${randomUUID()}.part`;
      await writeFile(join(tempDir, id), 'half an upload');
      await age(join(tempDir, id), ageMs);
      return id;
    },
    async partialUploadExists(backend, id) {
      return access(join(backend.dir, 'blobs', '.tmp', id)).then(
        () => true,
        () => false,
      );
    },
  },
);
