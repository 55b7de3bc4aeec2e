import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog } from '../../src/catalog/types.js';
import { conversationStoreOf } from '../../src/conversations/catalog-conversation-store.js';
import { describeConversationStore } from './conversation-suite.js';

describeConversationStore('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-conversations-'));
  const filename = join(dir, 'catalog.sqlite');
  // As openStorage does: the catalog opens (and migrates) the file, the store shares it.
  const catalogs: Catalog[] = [await createSqliteCatalog({ filename })];
  return {
    store: conversationStoreOf(catalogs[0] as Catalog),
    // A second catalog on the same file: what it reads was on disk.
    reopen: async () => {
      const catalog = await createSqliteCatalog({ filename });
      catalogs.push(catalog);
      return conversationStoreOf(catalog);
    },
    cleanup: async () => {
      for (const catalog of catalogs) await catalog.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
