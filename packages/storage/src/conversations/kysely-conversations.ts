import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { encodeTime, toDate, toNumber } from '../catalog/rows.js';
import type { CatalogTables, ConversationMessagesTable, ConversationsTable } from '../catalog/tables.js';
import type { CatalogTraits } from '../catalog/traits.js';
import {
  type ConversationRecord,
  type ConversationStore,
  MAX_TITLE_CHARS,
  type MessageRecord,
  type NewMessage,
} from './types.js';

export interface KyselyConversationStoreOptions {
  /** @default () => new Date() */
  now?: () => Date;
}

const APPEND_ATTEMPTS = 3;

/**
 * The store, written once over Kysely like the catalog: `conversationStoreOf` passes the
 * catalog's instance and traits. Every query starts from `owner = ?` (directly or through the conversation).
 */
export function createKyselyConversationStore(
  db: Kysely<CatalogTables>,
  traits: CatalogTraits,
  options: KyselyConversationStoreOptions = {},
): ConversationStore {
  const now = options.now ?? (() => new Date());
  const time = (date: Date) => encodeTime(traits, date);

  const countOf = async (id: string) => {
    const row = await db
      .selectFrom('conversation_messages')
      .select(({ fn }) => fn.countAll().as('count'))
      .where('conversation_id', '=', id)
      .executeTakeFirst();
    return toNumber(row?.count as number | string | undefined);
  };
  const owned = (owner: string, id: string) =>
    db.selectFrom('conversations').selectAll().where('owner', '=', owner).where('id', '=', id);
  const get = async (owner: string, id: string) => {
    const row = await owned(owner, id).executeTakeFirst();
    return row && toConversation(row, await countOf(row.id));
  };

  return {
    dialect: traits.dialect,

    async create(owner, fields = {}) {
      requireOwner(owner);
      const at = now();
      const row = {
        id: randomUUID(),
        owner,
        title: cleanTitle(fields.title ?? ''),
        created_at: time(at),
        updated_at: time(at),
      };
      await db.insertInto('conversations').values(row).execute();
      return toConversation(row, 0);
    },

    async list(owner, listOptions = {}) {
      const limit = clampInt(listOptions.limit ?? 50, 1, 500);
      const offset = clampInt(listOptions.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
      const rows = await db
        .selectFrom('conversations')
        .selectAll('conversations')
        .select((eb) =>
          eb
            .selectFrom('conversation_messages')
            .select(({ fn }) => fn.countAll().as('n'))
            .whereRef('conversation_messages.conversation_id', '=', 'conversations.id')
            .as('message_count'),
        )
        .where('owner', '=', owner)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'asc')
        .limit(limit)
        .offset(offset)
        .execute();
      const total = await db
        .selectFrom('conversations')
        .select(({ fn }) => fn.countAll().as('count'))
        .where('owner', '=', owner)
        .executeTakeFirst();
      return {
        items: rows.map((row) => toConversation(row, toNumber(row.message_count as number | string | null))),
        total: toNumber(total?.count as number | string | undefined),
      };
    },

    get,

    async rename(owner, id, title) {
      const result = await db
        .updateTable('conversations')
        .set({ title: cleanTitle(title), updated_at: time(now()) })
        .where('owner', '=', owner)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n ? get(owner, id) : undefined;
    },

    async deleteOwner(owner) {
      return db.transaction().execute(async (trx) => {
        const mine = trx.selectFrom('conversations').select('id').where('owner', '=', owner);
        await trx.deleteFrom('conversation_messages').where('conversation_id', 'in', mine).execute();
        const deleted = await trx.deleteFrom('conversations').where('owner', '=', owner).executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
    },

    async delete(owner, id) {
      // Messages first: SQLite enforces the cascade only with foreign_keys on, which is per connection.
      return db.transaction().execute(async (trx) => {
        const found = await trx
          .selectFrom('conversations')
          .select('id')
          .where('owner', '=', owner)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!found) return false;
        await trx.deleteFrom('conversation_messages').where('conversation_id', '=', id).execute();
        await trx.deleteFrom('conversations').where('id', '=', id).execute();
        return true;
      });
    },

    async append(owner, id, messages) {
      for (const message of messages) checkMessage(message);
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute(async (trx) => {
            const query = trx
              .selectFrom('conversations')
              .select('id')
              .where('owner', '=', owner)
              .where('id', '=', id);
            // PostgreSQL: writers of one conversation queue on its row. SQLite has no FOR UPDATE
            // and needs none: its one writer at a time already serializes the transaction.
            const found = await (traits.dialect === 'postgres'
              ? query.forUpdate()
              : query
            ).executeTakeFirst();
            if (!found) return undefined;
            const last = await trx
              .selectFrom('conversation_messages')
              .select(({ fn }) => fn.max('seq').as('seq'))
              .where('conversation_id', '=', id)
              .executeTakeFirst();
            const first = toNumber(last?.seq as number | string | null | undefined) + 1;
            const at = now();
            const rows = messages.map((message, i) => ({
              id: randomUUID(),
              conversation_id: id,
              seq: first + i,
              role: message.role,
              data: JSON.stringify(message.data),
              created_at: time(at),
            }));
            if (rows.length > 0) await trx.insertInto('conversation_messages').values(rows).execute();
            await trx
              .updateTable('conversations')
              .set({ updated_at: time(at) })
              .where('id', '=', id)
              .execute();
            return rows.map(toMessage);
          });
        } catch (error) {
          // Two writers picked the same next seq; the unique constraint stopped one. Try again.
          if (attempt >= APPEND_ATTEMPTS || !traits.isUniqueViolation(error)) throw error;
        }
      }
    },

    async messages(owner, id) {
      if (!(await owned(owner, id).executeTakeFirst())) return undefined;
      const rows = await db
        .selectFrom('conversation_messages')
        .selectAll()
        .where('conversation_id', '=', id)
        .orderBy('seq', 'asc')
        .execute();
      return rows.map(toMessage);
    },
  };
}

function toConversation(row: Selectable<ConversationsTable>, messageCount: number): ConversationRecord {
  return {
    id: row.id,
    owner: row.owner,
    title: row.title,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    messageCount,
  };
}

function toMessage(row: Selectable<ConversationMessagesTable>): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    seq: toNumber(row.seq),
    role: row.role,
    data: parseData(row.data),
    createdAt: toDate(row.created_at),
  };
}

/** A damaged cell reads as an empty message rather than failing the whole conversation. */
function parseData(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function cleanTitle(title: string): string {
  const flat = String(title)
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat);
  return chars.length <= MAX_TITLE_CHARS ? flat : `${chars.slice(0, MAX_TITLE_CHARS - 1).join('')}…`;
}

function checkMessage(message: NewMessage): void {
  if (typeof message?.role !== 'string' || !/^[a-z_]{1,32}$/.test(message.role)) {
    throw new Error(
      `[conversations] message role must be a short lower-case word, got ${String(message?.role)}`,
    );
  }
  if (typeof message.data !== 'object' || message.data === null || Array.isArray(message.data)) {
    throw new Error('[conversations] message data must be a JSON object');
  }
}

function requireOwner(owner: string): void {
  if (typeof owner !== 'string' || owner === '') throw new Error('[conversations] owner is required');
}

function clampInt(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.trunc(value))) : min;
}
