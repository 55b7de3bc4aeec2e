import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresCatalog } from '../../src/catalog/postgres.js';
import { describeCatalog } from './catalog-suite.js';
import { dialectEnabled } from './dialects.js';

// A fresh schema per run, dropped at the end, so runs never see each other's rows. When the
// server is missing every test here fails with the message below: it is never skipped quietly.
const url = process.env.FERRY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ferry_test_${randomBytes(6).toString('hex')}`;

describe.skipIf(!dialectEnabled('postgres'))('postgres (FERRY_TEST_DIALECTS)', () => {
  const admin = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  let unreachable: Error | undefined;
  /** The admin connection, or the reason there is none, thrown into the calling test. */
  const server = (): Client => {
    if (unreachable) throw unreachable;
    return admin;
  };

  beforeAll(async () => {
    try {
      await admin.connect();
    } catch (error) {
      unreachable = new Error(
        `PostgreSQL is unreachable at ${url} (${(error as Error).message || (error as { code?: string }).code}). ` +
          'The PostgreSQL catalog tests need it: start it, point FERRY_TEST_POSTGRES_URL at one, ' +
          'or run only SQLite with FERRY_TEST_DIALECTS=sqlite.',
      );
      return;
    }
    await admin.query(`create schema ${schema}`);
  });

  afterAll(async () => {
    if (unreachable) return;
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  const open = async () => {
    server();
    return createPostgresCatalog({ connectionString: url, schema });
  };

  describeCatalog('postgres', open, () => {
    it('creates every table inside the run schema and none in public', async () => {
      const { rows } = await server().query<{ table_schema: string; table_name: string }>(
        "select table_schema, table_name from information_schema.tables where table_name in ('files', 'users', 'kysely_migration') and table_schema in ($1, 'public')",
        [schema],
      );
      expect(rows.filter((r) => r.table_schema === 'public')).toEqual([]);
      expect(rows.map((r) => r.table_name).sort()).toEqual(['files', 'kysely_migration', 'users']);
    });

    it('stores sizes as bigint, timestamps as timestamptz, persist as boolean', async () => {
      const { rows } = await server().query<{ column_name: string; data_type: string }>(
        "select column_name, data_type from information_schema.columns where table_schema = $1 and table_name = 'files' and column_name in ('size', 'created_at', 'persist')",
        [schema],
      );
      expect(Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]))).toEqual({
        size: 'bigint',
        created_at: 'timestamp with time zone',
        persist: 'boolean',
      });
    });
  });

  it('rejects a bad schema name and reports an unreachable server clearly', async () => {
    server();
    await expect(createPostgresCatalog({ connectionString: url, schema: 'x; drop table y' })).rejects.toThrow(
      /\[postgres\].*schema/,
    );
    await expect(
      createPostgresCatalog({ connectionString: 'postgres://nobody:secret@127.0.0.1:1/none', schema }),
    ).rejects.toThrow(/cannot open catalog at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none.*ECONNREFUSED/);
  });
});
