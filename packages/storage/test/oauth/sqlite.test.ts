import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog } from '../../src/catalog/types.js';
import { dialectEnabled } from '../catalog/dialects.js';
import { describeOAuthCredentialStore } from './oauth-credential-suite.js';

// FERRY_TEST_DIALECTS narrows a run, as for the catalog's own suite (test/catalog/dialects.ts).
describe.skipIf(!dialectEnabled('sqlite'))('sqlite (FERRY_TEST_DIALECTS)', () => {
  describeOAuthCredentialStore('sqlite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-oauth-store-'));
    const filename = join(dir, 'catalog.sqlite');
    // As openStorage does: the catalog opens (and migrates) the file, the store shares it.
    const catalogs: Catalog[] = [await createSqliteCatalog({ filename })];
    return {
      catalog: catalogs[0] as Catalog,
      // A second catalog on the same file: what it reads was on disk.
      reopen: async () => {
        const catalog = await createSqliteCatalog({ filename });
        catalogs.push(catalog);
        return catalog;
      },
      cleanup: async () => {
        for (const catalog of catalogs) await catalog.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
});
