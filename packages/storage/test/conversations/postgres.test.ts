// Needs the PostgreSQL server of the machine (FERRY_TEST_POSTGRES_URL); without it every test here
// fails with the reason, never skips.

import { createTestSchema } from '@ferry/test-helpers/postgres';
import { createPostgresCatalog } from '../../src/catalog/postgres.js';
import type { Catalog } from '../../src/catalog/types.js';
import { conversationStoreOf } from '../../src/conversations/catalog-conversation-store.js';
import { describeConversationStore } from './conversation-suite.js';

describeConversationStore('postgres', async () => {
  const schema = await createTestSchema('ferry_conv');
  const open = () => createPostgresCatalog({ connectionString: schema.url, schema: schema.schema });
  const catalogs: Catalog[] = [await open()];
  return {
    store: conversationStoreOf(catalogs[0] as Catalog),
    // A second catalog (its own pool) on the same schema: what it reads was committed.
    reopen: async () => {
      const catalog = await open();
      catalogs.push(catalog);
      return conversationStoreOf(catalog);
    },
    cleanup: async () => {
      for (const catalog of catalogs) await catalog.close();
      await schema.drop();
    },
  };
});
