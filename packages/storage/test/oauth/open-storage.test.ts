// openStorage keeps OAuth credentials in the catalog's own database (SQLite under the data
// directory, or the PostgreSQL schema of FERRY_DATABASE_URL), sealed under the configured token
// keys or else a key file it creates once in the data directory: what one opening wrote, the next
// one opens.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStorageConfig } from '../../src/config/load-config.js';
import { OAUTH_KEY_FILE } from '../../src/oauth/credential-keys.js';
import { openStorage } from '../../src/open-storage.js';

let dir: string;
let schema: TestSchema;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-oauth-open-'));
  schema = await createTestSchema('ferry_oauth_open');
});
afterAll(async () => {
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

const configs = {
  // No token key: the key file in the data directory seals.
  sqlite: { env: () => ({ FERRY_DATA_DIR: join(dir, 'sqlite') }), keyFile: true },
  // FERRY_TOKEN_SECRET seals: no key file is written.
  postgres: {
    env: () => ({
      FERRY_DATA_DIR: join(dir, 'pg'),
      FERRY_DATABASE_URL: schema.url,
      FERRY_DATABASE_SCHEMA: schema.schema,
      FERRY_TOKEN_SECRET: 's'.repeat(40),
    }),
    keyFile: false,
  },
};

describe.each(Object.entries(configs))('openStorage OAuth credentials (%s)', (dialect, { env, keyFile }) => {
  it('keeps sealed credentials in the catalog database across openings', async () => {
    const first = await openStorage(loadStorageConfig({ env: env() }));
    try {
      expect(first.modes.catalog).toBe(dialect);
      await first.oauth.put('carol', 'crm', { tokens: { access_token: 'at-carol' } }, 'st');
    } finally {
      await first.close();
    }
    const file = join(env().FERRY_DATA_DIR, OAUTH_KEY_FILE);
    expect(existsSync(file)).toBe(keyFile);
    if (keyFile) expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = await openStorage(loadStorageConfig({ env: env() }));
    try {
      expect(await second.oauth.get('carol', 'crm')).toEqual({
        server: 'crm',
        secrets: { tokens: { access_token: 'at-carol' } },
        state: 'st',
      });
      expect(await second.oauth.deleteUser('carol')).toBe(1);
    } finally {
      await second.close();
    }
  });
});
