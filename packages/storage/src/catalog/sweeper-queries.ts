import { sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { encodeBool, encodeTime, toFileRecord, toNumber, toPendingFile } from './rows.js';
import type { Catalog } from './types.js';

// The only queries that look across owners: the retention sweeper's and the admin totals.
// None of them is reachable from a user-facing route with a user's input.

type SweeperQueries = Pick<Catalog, 'stats' | 'expired' | 'sessionFiles' | 'idleSessions' | 'stalePending'>;

export function sweeperQueries({ db, traits }: CatalogDeps): SweeperQueries {
  const ready = () => db.selectFrom('files').selectAll().where('status', '=', 'ready');
  return {
    async stats() {
      const files = await db
        .selectFrom('files')
        .select(({ fn }) => [
          fn.countAll().as('count'),
          // A pending row's size is a reservation, not stored bytes.
          fn
            .coalesce(fn.sum(sql<number>`case when status = 'ready' then size else 0 end`), sql.lit(0))
            .as('bytes'),
          fn.sum(sql<number>`case when status = 'pending' then 1 else 0 end`).as('pending'),
        ])
        .executeTakeFirst();
      const users = await db
        .selectFrom('users')
        .select(({ fn }) => fn.countAll().as('count'))
        .executeTakeFirst();
      const pending = toNumber(files?.pending as number | string | null);
      return {
        users: toNumber(users?.count as number | string),
        files: toNumber(files?.count as number | string) - pending,
        bytes: toNumber(files?.bytes as number | string),
        pending,
      };
    },

    async expired(at, limit) {
      const rows = await ready()
        .where('expires_at', 'is not', null)
        .where('expires_at', '<', encodeTime(traits, at))
        .orderBy('expires_at', 'asc')
        .limit(limit)
        .execute();
      return rows.map(toFileRecord);
    },

    async sessionFiles(sessionId) {
      const rows = await ready()
        .where('session_id', '=', sessionId)
        .where('persist', '=', encodeBool(traits, false))
        .orderBy('created_at', 'asc')
        .execute();
      return rows.map(toFileRecord);
    },

    async idleSessions(lastFileBefore, limit = 1000) {
      const rows = await db
        .selectFrom('files')
        .select('session_id')
        .where('status', '=', 'ready')
        .where('session_id', 'is not', null)
        .where('persist', '=', encodeBool(traits, false))
        .groupBy('session_id')
        .having(({ fn }) => fn.max('created_at'), '<', encodeTime(traits, lastFileBefore))
        .limit(limit)
        .execute();
      return rows.map((row) => row.session_id as string);
    },

    async stalePending(olderThan, limit = 1000) {
      const rows = await db
        .selectFrom('files')
        .select(['id', 'owner', 'name', 'blob_key', 'created_at'])
        .where('status', '=', 'pending')
        .where('created_at', '<', encodeTime(traits, olderThan))
        .orderBy('created_at', 'asc')
        .limit(limit)
        .execute();
      return rows.map(toPendingFile);
    },
  };
}
