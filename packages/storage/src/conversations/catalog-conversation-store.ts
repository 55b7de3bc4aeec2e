// The conversation store lives in the catalog's database, on the catalog's own connection: the
// catalog's migrations made its tables (0002_conversations) and closing the catalog closes it, so
// the store has neither a migration nor a connection of its own.
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
  return createKyselyConversationStore(db, traits, options);
}
