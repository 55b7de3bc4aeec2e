// Read caches of the SQLite catalog (sqlite.ts): the hot per-request reads (the listing, one file's
// row, a user's row, a user's usage) answered again without running their queries while the
// database cannot have changed under them.
import { sql } from 'kysely';
import type { CatalogDeps } from './catalog-deps.js';
import { listFiles } from './list-files.js';
import { encodeTime, toDate } from './rows.js';
import type { Catalog, ListOptions, ListResult } from './types.js';

/**
 * Something that changes whenever the database's content may have: SQLite's `total_changes()` of
 * this connection (every row any INSERT, UPDATE or DELETE of ours touched, committed or not) with
 * `data_version` (bumped by every commit of another connection or process).
 */
export type ChangeStamp = () => string;

export interface ReadCacheOptions {
  stamp: ChangeStamp;
  /** Answers kept per cached read, least recently used dropped first. @default 256 */
  maxEntries?: number;
}

interface Loaded<T> {
  value: T;
  /** Epoch ms from which the answer may be wrong even with no write (an expiry). */
  validUntil: number;
}

/**
 * The rule every cache here follows. An answer is reused only if (1) the change stamp is the one it
 * was computed under, so no write of this process and no commit of another has happened since (any
 * write anywhere drops every answer, which keeps the rule simple enough to trust), and (2) its
 * `validUntil` has not come. An answer computed while a write ran beside it (the stamp moved) is
 * not kept, and neither is a miss (`load` gave undefined). Callers get copies: changing what they
 * got leaves the cache alone.
 */
function stampedMemo<T>(options: ReadCacheOptions, copy: (value: T) => T) {
  const maxEntries = Math.max(1, Math.trunc(options.maxEntries ?? 256));
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the oldest.
  const entries = new Map<string, Loaded<T> & { stamp: string }>();
  return async (key: string, now: number, load: () => Promise<Loaded<T> | undefined>) => {
    const before = options.stamp();
    const hit = entries.get(key);
    if (hit !== undefined) {
      entries.delete(key);
      if (hit.stamp === before && now < hit.validUntil) {
        entries.set(key, hit);
        return copy(hit.value);
      }
    }
    const loaded = await load();
    if (loaded !== undefined && options.stamp() === before) {
      entries.set(key, { stamp: before, validUntil: loaded.validUntil, value: copy(loaded.value) });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    }
    return loaded?.value;
  };
}

const FOREVER = Number.POSITIVE_INFINITY;

/**
 * My Files listing. A full page costs two queries that read the owner's rows on the way (the page
 * and its COUNT); the web app asks for the same page again after every event. Reads hide expired
 * rows at once (expiry.ts), so an answer lives only until the earliest expiry among the owner's
 * live rows.
 */
export function cacheListings(deps: CatalogDeps, options: ReadCacheOptions): Catalog['list'] {
  const memo = stampedMemo<ListResult>(options, (result) => ({
    items: result.items.map((item) => ({ ...item })),
    total: result.total,
  }));

  const nextExpiry = async (owner: string, after: Date): Promise<number> => {
    const row = await deps.db
      .selectFrom('files')
      .select(({ fn }) => fn.min('expires_at').as('next'))
      .where('owner', '=', owner)
      .where('status', '=', 'ready')
      .where(sql<boolean>`${sql.ref('expires_at')} > ${encodeTime(deps.traits, after)}`)
      .executeTakeFirst();
    const next = row?.next as Date | string | null | undefined;
    return next === null || next === undefined ? FOREVER : toDate(next).getTime();
  };

  return async (owner, listOptions = {}) => {
    const at = deps.now();
    const result = await memo(keyOf(owner, listOptions), at.getTime(), async () => {
      const value = await listFiles(deps, owner, listOptions);
      // From `at`, taken before the listing read its own clock: an expiry between the two ends
      // the answer at once, which errs on the safe side.
      return { value, validUntil: await nextExpiry(owner, at) };
    });
    return result as ListResult;
  };
}

/** One file's row by id: what every download and metadata request reads first. Found rows only. */
export function cacheGets(
  get: Catalog['get'],
  deps: Pick<CatalogDeps, 'now'>,
  options: ReadCacheOptions,
): Catalog['get'] {
  const memo = stampedMemo(options, (record: NonNullable<Awaited<ReturnType<Catalog['get']>>>) => ({
    ...record,
  }));
  return (owner, id) =>
    memo(`${owner}\n${id}`, deps.now().getTime(), async () => {
      const record = await get(owner, id);
      return record && { value: record, validUntil: record.expiresAt?.getTime() ?? FOREVER };
    });
}

/** A user's row (their flags and quota: read by /api/me, every upload, every flags lookup). */
export function cacheUsers(getUser: Catalog['getUser'], options: ReadCacheOptions): Catalog['getUser'] {
  const memo = stampedMemo(options, (user: NonNullable<Awaited<ReturnType<Catalog['getUser']>>>) => ({
    ...user,
    flags: user.flags === null ? null : structuredClone(user.flags),
  }));
  return (id) =>
    memo(id, 0, async () => {
      const user = await getUser(id);
      return user && { value: user, validUntil: FOREVER };
    });
}

/** A user's usage (a SUM over all of their rows; expiry plays no part in it). */
export function cacheUsage(usage: Catalog['usage'], options: ReadCacheOptions): Catalog['usage'] {
  const memo = stampedMemo(options, (value: Awaited<ReturnType<Catalog['usage']>>) => ({ ...value }));
  return async (owner) => {
    const result = await memo(owner, 0, async () => ({ value: await usage(owner), validUntil: FOREVER }));
    return result as Awaited<ReturnType<Catalog['usage']>>;
  };
}

function keyOf(owner: string, o: ListOptions): string {
  return JSON.stringify([
    owner,
    o.sort,
    o.order,
    o.limit,
    o.offset,
    o.query,
    o.source,
    o.sessionId,
    o.allVersions,
  ]);
}
