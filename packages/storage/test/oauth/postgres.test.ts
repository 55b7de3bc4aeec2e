// Needs the PostgreSQL server of the machine (FERRY_TEST_POSTGRES_URL); without it every test here
// fails with the reason, never skips.

import { createTestSchema } from '@ferry/test-helpers/postgres';
import { describe } from 'vitest';
import { createPostgresCatalog } from '../../src/catalog/postgres.js';
import type { Catalog } from '../../src/catalog/types.js';
import { dialectEnabled } from '../catalog/dialects.js';
import { describeOAuthCredentialStore } from './oauth-credential-suite.js';

// FERRY_TEST_DIALECTS narrows a run, as for the catalog's own suite (test/catalog/dialects.ts).
describe.skipIf(!dialectEnabled('postgres'))('postgres (FERRY_TEST_DIALECTS)', () => {
  describeOAuthCredentialStore('postgres', async () => {
    const schema = await createTestSchema('ferry_oauth');
    const open = () => createPostgresCatalog({ connectionString: schema.url, schema: schema.schema });
    const catalogs: Catalog[] = [];
    try {
      catalogs.push(await open());
    } catch (error) {
      await schema.drop();
      throw error;
    }
    return {
      catalog: catalogs[0] as Catalog,
      // A second catalog (its own pool) on the same schema: what it reads was committed.
      reopen: async () => {
        const catalog = await open();
        catalogs.push(catalog);
        return catalog;
      },
      cleanup: async () => {
        for (const catalog of catalogs) await catalog.close();
        await schema.drop();
      },
    };
  });
});
