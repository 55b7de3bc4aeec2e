import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createKyselyCatalog, type KyselyCatalogOptions } from './kysely-catalog.js';
import { cacheGets, cacheListings, cacheUsage, cacheUsers } from './listing-cache.js';
import { cacheStatements } from './statement-cache.js';
import type { CatalogTables } from './tables.js';
import { type CatalogTraits, errorCode } from './traits.js';
import type { Catalog } from './types.js';

export interface SqliteCatalogOptions extends KyselyCatalogOptions {
  /** Database file; missing parent directories are created. `':memory:'` for a throwaway catalog. */
  filename: string;
  /** How long a write waits for another process holding the lock. @default 5000 */
  busyTimeoutMs?: number;
  /** Run migrations before returning. @default true */
  migrate?: boolean;
}

const sqliteCatalogTraits: CatalogTraits = Object.freeze({
  dialect: 'sqlite',
  nativeBooleans: false,
  nativeTimestamps: false,
  binaryCollation: 'binary',
  rowLocks: false,
  isUniqueViolation: (error: unknown) =>
    errorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE' || errorCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isForeignKeyViolation: (error: unknown) => errorCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
});

/** The embedded default: one file, no server. */
export async function createSqliteCatalog(options: SqliteCatalogOptions): Promise<Catalog> {
  if (typeof options?.filename !== 'string' || options.filename === '') {
    throw new Error('[catalog] [sqlite] option "filename" is required');
  }
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const database = new Database(options.filename);
  // WAL lets readers run beside the writer; busy_timeout makes a second process wait for the
  // write lock instead of failing at once; SQLite leaves foreign keys off unless asked.
  database.pragma('journal_mode = WAL');
  database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  database.pragma('foreign_keys = ON');

  const db = new Kysely<CatalogTables>({
    dialect: new SqliteDialect({ database: cacheStatements(database) }),
  });
  const now = options.now ?? (() => new Date());
  // See listing-cache.ts: total_changes() moves with every write of this connection, data_version
  // with every commit of another one. Read straight from better-sqlite3 (synchronous) as two
  // statements: the pragma_data_version table in one SELECT cost twice as much (~10 µs against
  // ~5), and a small download reads the stamp for its user and its file.
  const changesStatement = database.prepare('select total_changes()').pluck();
  const versionStatement = database.prepare('pragma data_version').pluck();
  const stamp = () => `${changesStatement.get() as number}:${versionStatement.get() as number}`;
  const kyselyCatalog = createKyselyCatalog(db, sqliteCatalogTraits, { ...options, now });
  const catalog: Catalog = {
    ...kyselyCatalog,
    list: cacheListings({ db, traits: sqliteCatalogTraits, now }, { stamp }),
    get: cacheGets(kyselyCatalog.get, { now }, { stamp, maxEntries: 1024 }),
    getUser: cacheUsers(kyselyCatalog.getUser, { stamp }),
    usage: cacheUsage(kyselyCatalog.usage, { stamp }),
  };
  if (options.migrate !== false) {
    try {
      await catalog.migrate();
    } catch (error) {
      await catalog.close();
      throw error;
    }
  }
  return catalog;
}
