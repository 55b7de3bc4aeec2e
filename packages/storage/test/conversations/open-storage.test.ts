// openStorage opens the conversation store on the catalog's own database: SQLite under the data
// directory, or the PostgreSQL schema of FERRY_DATABASE_URL. A conversation written through one
// opening is read back through the next.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { openStorage } from '../../src/open-storage.js';

let dir: string;
let schema: TestSchema;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-conv-open-'));
  schema = await createTestSchema('ferry_conv_open');
});
afterAll(async () => {
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

const configs = {
  sqlite: () => ({ FERRY_DATA_DIR: join(dir, 'sqlite') }),
  postgres: () => ({
    FERRY_DATA_DIR: join(dir, 'pg'),
    FERRY_DATABASE_URL: schema.url,
    FERRY_DATABASE_SCHEMA: schema.schema,
    FERRY_TOKEN_SECRET: 's'.repeat(40),
  }),
};

describe.each(Object.entries(configs))('openStorage conversations (%s)', (dialect, env) => {
  it('keeps conversations in the catalog database across openings, per owner', async () => {
    const first = await openStorage(loadStorageConfig({ env: env() }));
    let id: string;
    let owner: string;
    try {
      expect(first.modes.catalog).toBe(dialect);
      expect(first.conversations.dialect).toBe(dialect);
      owner = await first.files.ensureUser('carol');
      id = (await first.conversations.create(owner, { title: 'kept' })).id;
      await first.conversations.append(owner, id, [{ role: 'user', data: { text: 'remember me' } }]);
    } finally {
      await first.close();
    }
    const second = await openStorage(loadStorageConfig({ env: env() }));
    try {
      expect((await second.conversations.messages(owner, id))?.map((m) => m.data)).toEqual([
        { text: 'remember me' },
      ]);
      const other = await second.files.ensureUser('dave');
      expect(await second.conversations.get(other, id)).toBeUndefined();
      expect((await second.conversations.list(owner)).items.map((c) => c.title)).toEqual(['kept']);
    } finally {
      await second.close();
    }
  });
});
