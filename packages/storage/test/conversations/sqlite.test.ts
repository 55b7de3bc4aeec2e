import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import { createSqliteConversationStore } from '../../src/conversations/dialects.js';
import { describeConversationStore } from './conversation-suite.js';

describeConversationStore('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-conversations-'));
  const filename = join(dir, 'catalog.sqlite');
  // The catalog opens (and migrates) the same file first, as openStorage does.
  const catalog = await createSqliteCatalog({ filename });
  const open = () => createSqliteConversationStore({ filename });
  return {
    store: await open(),
    reopen: open,
    cleanup: async () => {
      await catalog.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
