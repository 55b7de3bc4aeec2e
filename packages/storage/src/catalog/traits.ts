// What differs between the catalog's dialects, declared as data (as kysely's DialectAdapter
// declares `supportsReturning`), so the catalog itself has a single code path.

export interface CatalogTraits {
  readonly dialect: 'sqlite' | 'postgres';
  /** PostgreSQL has `boolean`; SQLite stores 0/1 (and cannot bind JS booleans). */
  readonly nativeBooleans: boolean;
  /**
   * PostgreSQL has `timestamptz`; SQLite stores `Date.toISOString()` text, whose fixed width and
   * UTC zone make text comparison and sorting agree with time order.
   */
  readonly nativeTimestamps: boolean;
  /**
   * A collation that compares bytes, so listings sort the same on every dialect whatever the
   * database's locale: SQLite's `binary`, PostgreSQL's `"C"`.
   */
  readonly binaryCollation: string;
  /**
   * `SELECT … FOR NO KEY UPDATE` exists and writers run side by side (PostgreSQL), so a check and
   * the write it guards must lock a row first. SQLite has no row locks and needs none: it runs
   * one writer at a time, and a single statement takes the write lock before it reads.
   */
  readonly rowLocks: boolean;
  /** Schema holding the tables and kysely's migration tables; undefined where schemas do not exist. */
  readonly schema?: string;
  isUniqueViolation(error: unknown): boolean;
  isForeignKeyViolation(error: unknown): boolean;
}

/** The `code` property drivers put on their errors (pg: SQLSTATE, better-sqlite3: extended result code). */
export function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}
