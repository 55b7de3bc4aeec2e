import { type Kysely, sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { unexpired } from './expiry.js';
import { fileWrites } from './file-writes.js';
import { listFiles } from './list-files.js';
import { migrateCatalog } from './migrations.js';
import { quotaReservations } from './reservations.js';
import { toFileRecord, toNumber } from './rows.js';
import { sweeperQueries } from './sweeper-queries.js';
import type { CatalogTables } from './tables.js';
import type { CatalogTraits } from './traits.js';
import type { Catalog, FileRecord } from './types.js';
import { userMethods } from './users.js';

export interface KyselyCatalogOptions {
  /** Clock for `created_at` and for what has expired. @default () => new Date() */
  now?: () => Date;
}

/**
 * The catalog, written once over Kysely. Dialect factories (sqlite.ts, postgres.ts) pass the
 * Kysely instance and the traits that say how their values and errors look. Every owner-facing
 * query below starts from `owner = ?`; the cross-owner ones live in sweeper-queries.ts. Reads see
 * only ready rows that have not expired (expiry.ts).
 */
export function createKyselyCatalog(
  db: Kysely<CatalogTables>,
  traits: CatalogTraits,
  options: KyselyCatalogOptions = {},
): Catalog {
  const deps: CatalogDeps = { db, traits, now: options.now ?? (() => new Date()) };
  const owned = (owner: string) =>
    db
      .selectFrom('files')
      .selectAll()
      .where('owner', '=', owner)
      .where('status', '=', 'ready')
      .where(unexpired('expires_at', traits, deps.now()));

  const get = async (owner: string, id: string): Promise<FileRecord | undefined> => {
    const row = await owned(owner).where('id', '=', id).executeTakeFirst();
    return row && toFileRecord(row);
  };

  return {
    dialect: traits.dialect,
    database: { db, traits },
    migrate: () => migrateCatalog(db as Kysely<unknown>, traits),
    ...userMethods(deps),
    ...fileWrites(deps, get),
    ...quotaReservations(deps),
    get,

    async latestByName(owner, name) {
      const row = await owned(owner)
        .where('name', '=', name)
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toFileRecord(row);
    },

    async versions(owner, name) {
      const rows = await owned(owner).where('name', '=', name).orderBy('version', 'desc').execute();
      return rows.map(toFileRecord);
    },

    list: (owner, listOptions) => listFiles(deps, owner, listOptions),

    async delete(owner, id) {
      const rows = await db
        .deleteFrom('files')
        .where('owner', '=', owner)
        .where('id', '=', id)
        .returning('blob_key')
        .execute();
      return rows.map((r) => r.blob_key);
    },

    async deleteAllVersions(owner, name) {
      const rows = await db
        .deleteFrom('files')
        .where('owner', '=', owner)
        .where('name', '=', name)
        .where('status', '=', 'ready')
        .returning('blob_key')
        .execute();
      return rows.map((r) => r.blob_key);
    },

    async deleteUser(owner) {
      return db.transaction().execute(async (trx) => {
        // The users row first, as a reservation locks it (reservations.ts): taking it after the
        // file rows could deadlock with an upload of this user reserving space meanwhile.
        if (traits.rowLocks) {
          await trx.selectFrom('users').select('id').where('id', '=', owner).forUpdate().execute();
        }
        const rows = await trx.deleteFrom('files').where('owner', '=', owner).returning('blob_key').execute();
        await trx.deleteFrom('users').where('id', '=', owner).execute();
        return rows.map((r) => r.blob_key);
      });
    },

    async usage(owner) {
      const row = await db
        .selectFrom('files')
        .select(({ fn }) => [fn.coalesce(fn.sum('size'), sql.lit(0)).as('bytes'), fn.countAll().as('count')])
        .where('owner', '=', owner)
        .where('status', '=', 'ready')
        .executeTakeFirst();
      return {
        bytes: toNumber(row?.bytes as number | string),
        count: toNumber(row?.count as number | string),
      };
    },

    ...sweeperQueries(deps),
    close: () => db.destroy(),
  };
}
