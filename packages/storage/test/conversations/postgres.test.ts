// Needs the PostgreSQL server of the machine (FERRY_TEST_POSTGRES_URL); without it every test here
// fails with the reason, never skips.
import { createPostgresConversationStore } from '../../src/conversations/dialects.js';
import { createTestSchema } from '../support/postgres.js';
import { describeConversationStore } from './conversation-suite.js';

describeConversationStore('postgres', async () => {
  const schema = await createTestSchema('ferry_conv');
  const open = () => createPostgresConversationStore({ connectionString: schema.url, schema: schema.schema });
  return { store: await open(), reopen: open, cleanup: () => schema.drop() };
});
