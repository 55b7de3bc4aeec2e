import { FerryError } from '@ferry/contract';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { unexpired } from './expiry.js';
import { toFileRecord, toNumber } from './rows.js';
import type { CatalogTables } from './tables.js';
import type { ListOptions, ListResult } from './types.js';

const MAX_LIMIT = 1000;
const SOURCES = new Set(['uploaded', 'generated', 'deferred']);

/** My Files listing: one owner's ready rows that have not expired, filtered, sorted and paged. */
export async function listFiles(
  { db, traits, now }: CatalogDeps,
  owner: string,
  options: ListOptions = {},
): Promise<ListResult> {
  const { sort = 'name', order = 'asc', limit = 100, offset = 0 } = options;
  checkOptions(options, limit, offset);

  const at = now();
  let query = db
    .selectFrom('files')
    .where('files.owner', '=', owner)
    .where('files.status', '=', 'ready')
    .where(unexpired('files.expires_at', traits, at));
  if (options.source !== undefined) query = query.where('files.source', '=', options.source);
  if (options.sessionId !== undefined) query = query.where('files.session_id', '=', options.sessionId);
  if (options.query !== undefined && options.query !== '') {
    // '!' escapes the pattern so a name search for "100%_done" means those characters.
    // SQLite's lower() folds ASCII only; PostgreSQL's folds all of Unicode.
    const pattern = `%${options.query.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
    query = query.where(sql<boolean>`lower(${sql.ref('files.name')}) like ${pattern} escape '!'`);
  }
  // Live rows before the latest-version filter: what the total counts names over (countQuery).
  const liveRows = query;
  if (options.allVersions !== true) {
    // An expired newer version hides nothing: the latest of a name is its newest live version,
    // as latestByName answers.
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('files as newer')
            .select('newer.id')
            .whereRef('newer.owner', '=', 'files.owner')
            .whereRef('newer.name', '=', 'files.name')
            .where('newer.status', '=', 'ready')
            .where(unexpired('newer.expires_at', traits, at))
            .whereRef('newer.version', '>', 'files.version'),
        ),
      ),
    );
  }

  const collate = sql.raw(`collate ${traits.binaryCollation}`);
  const byName = sql`lower(${sql.ref('files.name')}) ${collate}`;
  const nameExact = sql`${sql.ref('files.name')} ${collate}`;

  let page = query.selectAll('files');
  if (sort === 'created') page = page.orderBy('files.created_at', order);
  if (sort === 'size') page = page.orderBy('files.size', order);
  // Name is the primary key for 'name' and the tie-break for the others, so pages never overlap.
  page = page
    .orderBy(byName, order)
    .orderBy(nameExact, order)
    .orderBy('files.version', 'desc')
    .orderBy('files.id', 'asc');
  const rows = await page.limit(limit).offset(offset).execute();
  // A page that is not full ends the listing, so it tells the total without a COUNT over all of
  // the owner's rows (most owners fit in one page). An empty page past the start cannot.
  const ended = rows.length < limit && (rows.length > 0 || offset === 0);
  let total = offset + rows.length;
  if (!ended) {
    const counted = await countQuery(liveRows, query, options).executeTakeFirst();
    total = toNumber(counted?.total);
  }

  return { items: rows.map(toFileRecord), total };
}

/**
 * The total of a listing whose page was full. Without a source or session filter, the latest-only
 * listing has exactly one row per name that has a live version (names of ready rows are unique
 * per version, files_owner_name_version_ready), so it counts distinct names over the live rows: one
 * index walk instead of a NOT EXISTS probe per row, on every full page. A source or session filter
 * can drop a name's latest version but not an older one, which the probe then still hides, so
 * those keep the exact query.
 */
function countQuery<Q extends SelectQueryBuilder<CatalogTables, 'files', object>>(
  liveRows: Q,
  listed: Q,
  options: ListOptions,
) {
  const byName =
    options.allVersions !== true && options.source === undefined && options.sessionId === undefined;
  return byName
    ? liveRows.select(({ fn }) => fn.count<number | string>('files.name').distinct().as('total'))
    : listed.select(({ fn }) => fn.countAll<number | string>().as('total'));
}

function checkOptions(options: ListOptions, limit: number, offset: number): void {
  const bad = (field: string, why: string): never => {
    throw new FerryError('E_INVALID_INPUT', `Invalid list option ${field}: ${why}`, { field });
  };
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) bad('limit', `expected 1..${MAX_LIMIT}`);
  if (!Number.isInteger(offset) || offset < 0) bad('offset', 'expected an integer >= 0');
  if (options.sort !== undefined && !['name', 'created', 'size'].includes(options.sort)) {
    bad('sort', "expected 'name', 'created' or 'size'");
  }
  if (options.order !== undefined && options.order !== 'asc' && options.order !== 'desc') {
    bad('order', "expected 'asc' or 'desc'");
  }
  if (options.source !== undefined && !SOURCES.has(options.source)) bad('source', 'unknown source');
}
