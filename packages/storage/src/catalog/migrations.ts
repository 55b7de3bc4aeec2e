import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { CatalogTraits } from './traits.js';

// One migration list for every dialect. Column types that SQLite lacks come from the traits;
// everything else (constraints, partial unique index, indexes) is the same DDL on both.
// Append new migrations; never edit one that has shipped.

function catalogMigrations(traits: CatalogTraits): Record<string, Migration> {
  const timestamp = traits.nativeTimestamps ? 'timestamptz' : 'text';
  const bool = traits.nativeBooleans ? 'boolean' : 'integer';

  return {
    '0001_users_and_files': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('users')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('username', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('quota_bytes', 'bigint')
          .addColumn('flags', 'text')
          .execute();

        await db.schema
          .createTable('files')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('owner', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('version', 'integer')
          .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('mime', 'text', (c) => c.notNull())
          .addColumn('sha256', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('source', 'text', (c) => c.notNull())
          .addColumn('category', 'text')
          .addColumn('description', 'text')
          .addColumn('session_id', 'text')
          .addColumn('persist', bool, (c) => c.notNull())
          .addColumn('expires_at', timestamp)
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('info', 'text')
          .addColumn('blob_key', 'text', (c) => c.notNull().unique())
          .addColumn('status', 'text', (c) => c.notNull())
          .addCheckConstraint('files_source_check', sql`source in ('uploaded', 'generated', 'deferred')`)
          .addCheckConstraint('files_status_check', sql`status in ('pending', 'ready')`)
          .addCheckConstraint('files_ready_version_check', sql`status = 'pending' or version >= 1`)
          .execute();

        // The guard that makes concurrent finalize safe: two writers that pick the same next
        // version cannot both commit; the loser retries (see finalize in kysely-catalog.ts).
        await db.schema
          .createIndex('files_owner_name_version_ready')
          .on('files')
          .columns(['owner', 'name', 'version'])
          .unique()
          .where(sql.ref('status'), '=', 'ready')
          .execute();
        // Plain indexes too: SQLite cannot match a partial index to a query whose status is a
        // bound parameter.
        await db.schema.createIndex('files_owner_name').on('files').columns(['owner', 'name']).execute();
        await db.schema
          .createIndex('files_owner_created_at')
          .on('files')
          .columns(['owner', 'created_at'])
          .execute();
        await db.schema.createIndex('files_expires_at').on('files').column('expires_at').execute();
        await db.schema.createIndex('files_session_id').on('files').column('session_id').execute();
        await db.schema
          .createIndex('files_status_created_at')
          .on('files')
          .columns(['status', 'created_at'])
          .execute();
      },
    },
    // Chats with the model (conversations/). Messages go with their conversation (cascade); the
    // order within one is `seq`, unique so two writers can never interleave a conversation.
    '0002_conversations': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('conversations')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('conversations_owner_updated_at')
          .on('conversations')
          .columns(['owner', 'updated_at'])
          .execute();
        await db.schema
          .createTable('conversation_messages')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('conversation_id', 'text', (c) =>
            c.notNull().references('conversations.id').onDelete('cascade'),
          )
          .addColumn('seq', 'integer', (c) => c.notNull())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('created_at', timestamp, (c) => c.notNull())
          .addUniqueConstraint('conversation_messages_conversation_seq', ['conversation_id', 'seq'])
          .execute();
      },
    },
    // OAuth credentials of remote MCP servers, one row per (user, server) (oauth/). `secrets` is
    // AES-256-GCM ciphertext; `state` is the pending authorization's state, looked up at the callback.
    '0003_oauth_credentials': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('oauth_credentials')
          .addColumn('username', 'text', (c) => c.notNull())
          .addColumn('server', 'text', (c) => c.notNull())
          .addColumn('state', 'text')
          .addColumn('secrets', 'text', (c) => c.notNull())
          .addColumn('updated_at', timestamp, (c) => c.notNull())
          .addPrimaryKeyConstraint('oauth_credentials_pk', ['username', 'server'])
          .execute();
        await db.schema
          .createIndex('oauth_credentials_state')
          .on('oauth_credentials')
          .columns(['username', 'state'])
          .execute();
      },
    },
    // My Files sorts by name by default (list-files.ts): without an index in that exact order
    // (same expressions, same collation) every page sorted all of an owner's rows. With it, a page
    // of 50 reads about 50 index entries.
    '0004_files_owner_name_order': {
      async up(db: Kysely<unknown>) {
        const collate = sql.raw(`collate ${traits.binaryCollation}`);
        await db.schema
          .createIndex('files_owner_lower_name')
          .on('files')
          .expression(sql`owner, (lower(name)) ${collate}, name ${collate}, version desc, id`)
          .execute();
      },
    },
    // The same for My Files sorted by date (list-files.ts, sort 'created'): created_at, then the
    // name order as the tie-break. files_owner_created_at (owner, created_at) gave the first term
    // only, and SQLite preferred to sort all of the owner's rows through another index. Ascending
    // pages read in index order; descending ones read it backwards and sort only rows that tie on
    // created_at and name (versions are `version desc` both ways). The new index starts with the
    // old one's columns, so the old one goes.
    '0005_files_owner_created_order': {
      async up(db: Kysely<unknown>) {
        const collate = sql.raw(`collate ${traits.binaryCollation}`);
        await db.schema
          .createIndex('files_owner_created_order')
          .on('files')
          .expression(sql`owner, created_at, (lower(name)) ${collate}, name ${collate}, version desc, id`)
          .execute();
        await db.schema.dropIndex('files_owner_created_at').execute();
      },
    },
  };
}

/** Brings the schema to the latest migration; a no-op when it is already there. */
export async function migrateCatalog(db: Kysely<unknown>, traits: CatalogTraits): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => catalogMigrations(traits) };
  const migrator = new Migrator({
    db,
    provider,
    ...(traits.schema === undefined ? {} : { migrationTableSchema: traits.schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`catalog migration ${failed ?? ''} failed on ${traits.dialect}: ${describe(error)}`, {
      cause: error,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
