// The catalog reads of a consistency check (fsck.ts): every file row of every owner, page by page,
// and which of a batch of blob keys some row claims. They read through the catalog's own
// connection rather than the Catalog interface because no request ever needs them: they look
// across owners and at rows in any state, and only an operator's `ferry admin fsck` runs them.
// They only read; every change fsck makes goes through Catalog.delete, as any other deletion does.
import type { Catalog } from '../catalog/types.js';

/** A ready row as fsck reports it. */
export interface ScannedRow {
  id: string;
  owner: string;
  name: string;
  version: number;
  blobKey: string;
}

/**
 * Ready rows with an id after `afterId` (all of them from ''), in id order, at most `limit`:
 * keyset paging, so each page costs the same however far the scan has come.
 */
export async function readyRowsAfter(
  catalog: Catalog,
  afterId: string,
  limit: number,
): Promise<ScannedRow[]> {
  const rows = await catalog.database.db
    .selectFrom('files')
    .select(['id', 'owner', 'name', 'version', 'blob_key'])
    .where('status', '=', 'ready')
    .where('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    owner: row.owner,
    name: row.name,
    version: row.version ?? 0,
    blobKey: row.blob_key,
  }));
}

/** Whether a ready row with this id is still there (it may have been deleted since it was read). */
export async function readyRowExists(catalog: Catalog, id: string): Promise<boolean> {
  const row = await catalog.database.db
    .selectFrom('files')
    .select('id')
    .where('id', '=', id)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The keys among `keys` that a row (ready or pending: an upload still writing owns its key) names
 * as its blob. Keys follow blobKeyFor's `users/<owner>/<file-id>`, so they are looked up by file
 * id, the primary key; only keys that no row found that way claims are searched by blob_key,
 * which has no index (a full scan, but only for candidates that are almost always orphans).
 */
export async function claimedBlobKeys(catalog: Catalog, keys: readonly string[]): Promise<Set<string>> {
  const db = catalog.database.db;
  const claimed = new Set<string>();
  if (keys.length === 0) return claimed;
  const ids = [...new Set(keys.map((key) => key.slice(key.lastIndexOf('/') + 1)))];
  const byId = await db.selectFrom('files').select('blob_key').where('id', 'in', ids).execute();
  const wanted = new Set(keys);
  for (const row of byId) if (wanted.has(row.blob_key)) claimed.add(row.blob_key);
  const rest = keys.filter((key) => !claimed.has(key));
  if (rest.length === 0) return claimed;
  const byKey = await db.selectFrom('files').select('blob_key').where('blob_key', 'in', rest).execute();
  for (const row of byKey) claimed.add(row.blob_key);
  return claimed;
}
