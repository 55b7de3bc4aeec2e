// The conversation store's own connection to the catalog database. The catalog keeps its Kysely
// instance to itself, so the store opens a second one to the same file or server: SQLite in WAL
// mode lets both work side by side, and PostgreSQL gets a small second pool. Both run the one
// catalog migration list, which is safe to run again.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { sqliteCatalogTraits } from '../catalog/sqlite.js';
import type { CatalogTables } from '../catalog/tables.js';
import { type CatalogTraits, errorCode } from '../catalog/traits.js';
import {
  createKyselyConversationStore,
  type KyselyConversationStoreOptions,
} from './kysely-conversations.js';
import type { ConversationStore } from './types.js';

export interface SqliteConversationStoreOptions extends KyselyConversationStoreOptions {
  /** The catalog's database file (`':memory:'` gives a private throwaway database). */
  filename: string;
  /** @default 5000 */
  busyTimeoutMs?: number;
}

export interface PostgresConversationStoreOptions extends KyselyConversationStoreOptions {
  connectionString: string;
  /** @default 'public' */
  schema?: string;
  /** @default 4 */
  maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function createSqliteConversationStore(
  options: SqliteConversationStoreOptions,
): Promise<ConversationStore> {
  if (typeof options?.filename !== 'string' || options.filename === '') {
    throw new Error('[conversations] [sqlite] option "filename" is required');
  }
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const database = new Database(options.filename);
  database.pragma('journal_mode = WAL');
  database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  database.pragma('foreign_keys = ON');
  const db = new Kysely<CatalogTables>({ dialect: new SqliteDialect({ database }) });
  return migrated(createKyselyConversationStore(db, sqliteCatalogTraits, options));
}

export async function createPostgresConversationStore(
  options: PostgresConversationStoreOptions,
): Promise<ConversationStore> {
  if (typeof options?.connectionString !== 'string' || options.connectionString === '') {
    throw new Error('[conversations] [postgres] option "connectionString" is required');
  }
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`[conversations] [postgres] option "schema" must match ${SCHEMA_NAME}`);
  }
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 4,
    ...(schema === 'public' ? {} : { options: `-c search_path=${schema}` }),
  });
  // As in the catalog: a lost idle client must not kill the process.
  pool.on('error', () => {});
  const db = new Kysely<CatalogTables>({ dialect: new PostgresDialect({ pool }) });
  const traits: CatalogTraits = Object.freeze({
    dialect: 'postgres',
    nativeBooleans: true,
    nativeTimestamps: true,
    binaryCollation: '"C"',
    schema,
    isUniqueViolation: (error: unknown) => errorCode(error) === '23505',
    isForeignKeyViolation: (error: unknown) => errorCode(error) === '23503',
  });
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return migrated(createKyselyConversationStore(db, traits, options));
}

async function migrated(store: ConversationStore & { migrate(): Promise<void> }): Promise<ConversationStore> {
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  const { migrate: _migrate, ...rest } = store;
  return rest;
}
