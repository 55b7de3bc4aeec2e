import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { createKyselyCatalog, type KyselyCatalogOptions } from './kysely-catalog.js';
import type { CatalogTables } from './tables.js';
import { type CatalogTraits, errorCode } from './traits.js';
import type { Catalog } from './types.js';

export interface PostgresCatalogOptions extends KyselyCatalogOptions {
  /** `postgres://user:password@host:port/database`. */
  connectionString: string;
  /**
   * Schema holding the tables and kysely's migration tables; created if missing. Lowercase
   * letters, digits and `_`. @default 'public'
   */
  schema?: string;
  /** Pool size. @default 10 */
  maxConnections?: number;
  /** Run migrations before returning. @default true */
  migrate?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function postgresCatalogTraits(schema: string): CatalogTraits {
  return Object.freeze({
    dialect: 'postgres',
    nativeBooleans: true,
    nativeTimestamps: true,
    binaryCollation: '"C"',
    rowLocks: true,
    schema,
    isUniqueViolation: (error: unknown) => errorCode(error) === '23505',
    isForeignKeyViolation: (error: unknown) => errorCode(error) === '23503',
  });
}

/** Scale mode: any number of Ferry instances share one PostgreSQL catalog. */
export async function createPostgresCatalog(options: PostgresCatalogOptions): Promise<Catalog> {
  if (typeof options?.connectionString !== 'string' || options.connectionString === '') {
    throw new Error('[catalog] [postgres] option "connectionString" is required');
  }
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `[catalog] [postgres] option "schema" must match ${SCHEMA_NAME}, got ${JSON.stringify(schema)}`,
    );
  }

  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    // Every connection resolves unqualified table names in our schema, so the one set of
    // queries and migrations serves any schema.
    ...(schema === 'public' ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle client losing its server emits 'error' on the pool; unhandled, that would kill the
  // process. The next query gets a fresh connection or a real error instead.
  pool.on('error', () => {});
  // The pool's listener is removed while a client is checked out (pg-pool's _acquireClient): a
  // server that drops it between two queries of a transaction (pg_terminate_backend, a failover)
  // made it emit 'error' with no listener, an uncaught exception that ended the process. The
  // query under way or the next one fails instead, and the pool discards the broken client.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });

  const db = new Kysely<CatalogTables>({ dialect: new PostgresDialect({ pool }) });
  const catalog = createKyselyCatalog(db, postgresCatalogTraits(schema), options);
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    if (options.migrate !== false) await catalog.migrate();
  } catch (error) {
    await catalog.close();
    throw new Error(
      `[catalog] [postgres] cannot open catalog at ${redact(options.connectionString)} (schema ${schema}): ${describe(error)}`,
      { cause: error },
    );
  }
  return catalog;
}

function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable connection string)';
  }
}

/** Node reports a refused dual-stack connect as an AggregateError with an empty message. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map((e: unknown) => describe(e)).join('; ');
  }
  if (error instanceof Error) return error.message || String(errorCode(error) ?? error.name);
  return String(error);
}
