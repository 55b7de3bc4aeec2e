import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FerryError } from '@ferry/contract';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { fileNotFound, nameTaken, requireText } from './catalog-errors.js';
import { encodeBool, encodeJson, encodeTime, toDate, toFileRecord } from './rows.js';
import type { FilesTable } from './tables.js';
import { blobKeyFor, type Catalog, type FileRecord, type FinalizeFields } from './types.js';

type FileWrites = Pick<Catalog, 'insertPending' | 'finalize' | 'finalizeUnlessIdentical' | 'rename'>;

/** Retries of a lost version race; each waits a little longer, so 20 writers settle quickly. */
const FINALIZE_ATTEMPTS = 100;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The writes that have a race to win: version numbers and names. */
export function fileWrites(
  { db, traits, now }: CatalogDeps,
  get: (owner: string, id: string) => Promise<FileRecord | undefined>,
): FileWrites {
  /**
   * Gives the pending row the next version of its name. With `reuse`, the latest version is read
   * first and returned instead when it holds the same bytes; the version is then only claimed if no
   * newer one appeared since that read (else the loop reads again), so the comparison always
   * concerns the version the new one would follow.
   */
  const finalizeRow = async (
    owner: string,
    id: string,
    fields: FinalizeFields,
    reuse: boolean,
  ): Promise<{ file: FileRecord; reused: boolean }> => {
    checkFinalizeFields(fields);
    const pending = await db
      .selectFrom('files')
      .select(['name', 'source', 'persist', 'session_id', 'expires_at'])
      .where('owner', '=', owner)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (!pending) throw fileNotFound(id);

    for (let attempt = 1; ; attempt++) {
      let seenVersion: number | undefined;
      if (reuse) {
        const latestRow = await db
          .selectFrom('files')
          .selectAll()
          .where('owner', '=', owner)
          .where('name', '=', pending.name)
          .where('status', '=', 'ready')
          .orderBy('version', 'desc')
          .limit(1)
          .executeTakeFirst();
        const latest = latestRow && toFileRecord(latestRow);
        if (latest && latest.sha256 === fields.sha256 && outlives(latest, pending)) {
          return { file: latest, reused: true };
        }
        seenVersion = latest?.version ?? 0;
      }
      // One statement computes and claims the next version: atomic in SQLite (the write lock is
      // taken before the read) and guarded by the partial unique index in PostgreSQL, where
      // two concurrent statements can read the same max and the later one fails.
      const nextVersion = db
        .selectFrom('files')
        .select(sql<number>`coalesce(max(version), 0) + 1`.as('next'))
        .where('owner', '=', owner)
        .where('name', '=', pending.name)
        .where('status', '=', 'ready');
      try {
        let update = db
          .updateTable('files')
          .set({
            version: nextVersion,
            status: 'ready',
            size: fields.size,
            sha256: fields.sha256,
            ...(fields.mime === undefined ? {} : { mime: fields.mime }),
            info: encodeJson(fields.info),
            created_at: encodeTime(traits, now()),
          })
          .where('owner', '=', owner)
          .where('id', '=', id)
          .where('status', '=', 'pending');
        if (seenVersion !== undefined) {
          const after = seenVersion;
          update = update.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('files as newer')
                  .select('newer.id')
                  .where('newer.owner', '=', owner)
                  .where('newer.name', '=', pending.name)
                  .where('newer.status', '=', 'ready')
                  .where('newer.version', '>', after),
              ),
            ),
          );
        }
        const row = await update.returningAll().executeTakeFirst();
        if (row) return { file: toFileRecord(row), reused: false };
        // A newer version arrived after the read above: compare against that one instead.
        if (seenVersion !== undefined && attempt < FINALIZE_ATTEMPTS && (await stillPending(owner, id))) {
          continue;
        }
        // Someone else finalized or deleted the row between our read and our write.
        throw fileNotFound(id);
      } catch (error) {
        if (!traits.isUniqueViolation(error) || attempt >= FINALIZE_ATTEMPTS) throw error;
        await sleep(Math.random() * Math.min(attempt, 10));
      }
    }
  };

  const stillPending = async (owner: string, id: string) =>
    (await db
      .selectFrom('files')
      .select('id')
      .where('owner', '=', owner)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst()) !== undefined;

  return {
    async insertPending(row) {
      requireText('name', row.name);
      const id = row.id ?? randomUUID();
      const blobKey = row.blobKey ?? blobKeyFor(row.owner, id);
      const createdAt = now();
      try {
        await db
          .insertInto('files')
          .values({
            id,
            owner: row.owner,
            name: row.name,
            version: null,
            size: 0,
            mime: row.mime,
            sha256: '',
            source: row.source,
            category: row.category ?? null,
            description: row.description ?? null,
            session_id: row.sessionId ?? null,
            persist: encodeBool(traits, row.persist ?? true),
            expires_at: row.expiresAt ? encodeTime(traits, row.expiresAt) : null,
            created_at: encodeTime(traits, createdAt),
            info: null,
            blob_key: blobKey,
            status: 'pending',
          })
          .execute();
      } catch (error) {
        if (traits.isForeignKeyViolation(error)) {
          throw new FerryError('E_INVALID_INPUT', `Unknown owner: ${row.owner}`, { field: 'owner' });
        }
        if (traits.isUniqueViolation(error)) {
          throw new FerryError('E_INVALID_INPUT', 'File id or blob key already in use', { field: 'id' });
        }
        throw error;
      }
      return { id, owner: row.owner, name: row.name, blobKey, createdAt };
    },

    async finalize(owner, id, fields) {
      return (await finalizeRow(owner, id, fields, false)).file;
    },

    finalizeUnlessIdentical: (owner, id, fields) => finalizeRow(owner, id, fields, true),

    async rename(owner, id, newName) {
      requireText('name', newName);
      for (;;) {
        const current = await get(owner, id);
        if (!current) throw fileNotFound(id);
        if (current.name === newName) return current;
        let updated: bigint;
        try {
          // The NOT EXISTS makes check and rename one statement; the unique index catches the
          // rare writer that slips a version of newName in concurrently.
          const result = await db
            .updateTable('files')
            .set({ name: newName })
            .where('owner', '=', owner)
            .where('name', '=', current.name)
            .where('status', '=', 'ready')
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('files as other')
                    .select('other.id')
                    .where('other.owner', '=', owner)
                    .where('other.name', '=', newName)
                    .where('other.status', '=', 'ready'),
                ),
              ),
            )
            .executeTakeFirst();
          updated = result.numUpdatedRows;
        } catch (error) {
          if (traits.isUniqueViolation(error)) throw nameTaken(newName);
          throw error;
        }
        if (updated > 0n) return { ...current, name: newName };
        const again = await get(owner, id);
        if (!again) throw fileNotFound(id);
        // Renamed by someone else meanwhile: try again from its new name.
        if (again.name !== current.name) continue;
        throw nameTaken(newName);
      }
    },
  };
}

/**
 * Whether handing back `latest` instead of storing the pending upload loses nothing: same kind of
 * file, and it stays at least as long (a session-only version would otherwise vanish with its
 * session while the new upload asked to be kept, or kept in another session).
 */
function outlives(
  latest: FileRecord,
  pending: Pick<Selectable<FilesTable>, 'source' | 'persist' | 'session_id' | 'expires_at'>,
): boolean {
  if (latest.source !== pending.source) return false;
  const pendingExpiry = pending.expires_at === null ? null : toDate(pending.expires_at);
  if (latest.expiresAt !== null && (pendingExpiry === null || latest.expiresAt < pendingExpiry)) return false;
  return latest.persist || (!pending.persist && latest.sessionId === pending.session_id);
}

function checkFinalizeFields(fields: FinalizeFields): void {
  if (!Number.isSafeInteger(fields.size) || fields.size < 0) {
    throw new FerryError('E_INVALID_INPUT', 'size must be an integer >= 0', { field: 'size' });
  }
  if (!SHA256_HEX.test(fields.sha256)) {
    throw new FerryError('E_INVALID_INPUT', 'sha256 must be 64 lowercase hex digits', { field: 'sha256' });
  }
}
