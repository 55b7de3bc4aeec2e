import { FerryError } from '@ferry/contract';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { fileNotFound } from './catalog-errors.js';
import { encodeTime, toNumber } from './rows.js';
import type { CatalogTables } from './tables.js';
import type { Catalog, ReserveRequest } from './types.js';

// Quota reservations. A pending row's `size` is what its upload has reserved; the quota counts
// every row of the owner, ready or pending, so space promised to an upload in progress is taken.
// The grant is one conditional UPDATE: it writes only if what the other rows hold leaves room.
// That makes check and write one step in SQLite, which runs one writer at a time and takes the
// write lock before the statement reads. PostgreSQL runs writers side by side, and in READ
// COMMITTED two statements would each sum the other's reservation out; so each reservation first
// locks the owner's users row, and the UPDATE, a later statement, reads everything the previous
// holder of that lock committed. Finalize and delete never raise the sum, so they need no lock.

type Reservations = Pick<Catalog, 'reserve'>;

export function quotaReservations({ db, traits, now }: CatalogDeps): Reservations {
  /** True when the row now reserves `bytes`; false when they do not fit or it is not pending. */
  const grant = async (
    conn: Kysely<CatalogTables>,
    owner: string,
    id: string,
    { bytes, quotaBytes }: ReserveRequest,
  ): Promise<boolean> => {
    const othersHold = conn
      .selectFrom('files as other')
      .select(sql<number>`cast(coalesce(sum(other.size), 0) as bigint)`.as('held'))
      .where('other.owner', '=', owner)
      .where('other.id', '<>', id);
    const result = await conn
      .updateTable('files')
      .set({
        size: bytes,
        // The reservation is the upload's sign of life: stalePending measures from here.
        created_at: encodeTime(traits, now()),
      })
      .where('owner', '=', owner)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where(sql<number>`cast(${quotaBytes} as bigint) - ${othersHold}`, '>=', bytes)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  };

  return {
    async reserve(owner, id, request) {
      checkReserveRequest(request);
      const granted = traits.rowLocks
        ? await db
            .transaction()
            // Explicit: under REPEATABLE READ the UPDATE would read the snapshot taken before the lock.
            .setIsolationLevel('read committed')
            .execute(async (trx) => {
              // NO KEY UPDATE queues every reservation of this owner behind the one before, while
              // foreign-key checks of new file rows (KEY SHARE) pass freely.
              await trx.selectFrom('users').select('id').where('id', '=', owner).forNoKeyUpdate().execute();
              return grant(trx, owner, id, request);
            })
        : await grant(db, owner, id, request);
      if (granted) return { ok: true };

      // Refused, or the row is gone: read which, and what the caller decides its next step by.
      const sumWhere = (condition: RawBuilder<unknown>, value: RawBuilder<unknown> = sql`size`) =>
        sql<number | string>`coalesce(sum(case when ${condition} then ${value} else 0 end), 0)`;
      const pending = sql`status = 'pending'`;
      const row = await db
        .selectFrom('files')
        .select([
          sumWhere(sql`status = 'ready'`).as('stored'),
          sumWhere(sql`${pending} and id <> ${id}`).as('reserved'),
          sumWhere(sql`${pending} and id = ${id}`, sql`1`).as('mine'),
          sumWhere(sql`${pending} and id < ${id} collate ${sql.raw(traits.binaryCollation)}`).as('before'),
        ])
        .where('owner', '=', owner)
        .executeTakeFirst();
      if (toNumber(row?.mine) === 0) throw fileNotFound(id);
      return {
        ok: false,
        storedBytes: toNumber(row?.stored),
        reservedByOthers: toNumber(row?.reserved),
        reservedBefore: toNumber(row?.before),
      };
    },
  };
}

function checkReserveRequest({ bytes, quotaBytes }: ReserveRequest): void {
  const count = (value: number) => Number.isSafeInteger(value) && value >= 0;
  if (!count(bytes) || !count(quotaBytes)) {
    throw new FerryError('E_INVALID_INPUT', 'A reservation needs integers bytes >= 0 and quotaBytes >= 0', {
      field: 'reservation',
      bytes,
      quotaBytes,
    });
  }
}
