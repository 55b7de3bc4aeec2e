// The conversation store lives in the catalog's database, on the catalog's own connection: the
// catalog's migrations made its tables (0002_conversations), and the catalog closes the
// connection, so the store's close() has nothing of its own to release.
import type { Catalog } from '../catalog/types.js';
import {
  createKyselyConversationStore,
  type KyselyConversationStoreOptions,
} from './kysely-conversations.js';
import type { ConversationStore } from './types.js';

export function conversationStoreOf(
  catalog: Catalog,
  options: KyselyConversationStoreOptions = {},
): ConversationStore {
  const { db, traits } = catalog.database;
  const { migrate: _migrate, ...store } = createKyselyConversationStore(db, traits, options);
  return { ...store, close: async () => {} };
}
