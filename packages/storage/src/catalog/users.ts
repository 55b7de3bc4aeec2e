import { randomUUID } from 'node:crypto';
import type { CatalogDeps } from './catalog-deps.js';
import { requireText } from './catalog-errors.js';
import { encodeJson, encodeTime, toUserRecord } from './rows.js';
import type { Catalog } from './types.js';

export function userMethods({
  db,
  traits,
  now,
}: CatalogDeps): Pick<Catalog, 'ensureUser' | 'getUser' | 'updateUser'> {
  return {
    async ensureUser(username) {
      requireText('username', username);
      const find = () =>
        db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
      const existing = await find();
      if (existing) return existing.id;
      // ON CONFLICT DO NOTHING makes two first logins of the same user agree on one row.
      await db
        .insertInto('users')
        .values({
          id: randomUUID(),
          username,
          created_at: encodeTime(traits, now()),
          quota_bytes: null,
          flags: null,
        })
        .onConflict((oc) => oc.column('username').doNothing())
        .execute();
      const created = await find();
      if (!created) throw new Error(`user ${username} vanished right after it was inserted`);
      return created.id;
    },

    async getUser(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toUserRecord(row);
    },

    async updateUser(id, fields) {
      const set: { quota_bytes?: number | null; flags?: string | null } = {};
      if (fields.quotaBytes !== undefined) set.quota_bytes = fields.quotaBytes;
      if (fields.flags !== undefined) set.flags = encodeJson(fields.flags);
      if (Object.keys(set).length === 0) return;
      await db.updateTable('users').set(set).where('id', '=', id).execute();
    },
  };
}
