import { type RawBuilder, sql } from 'kysely';
import { encodeTime } from './rows.js';
import type { CatalogTraits } from './traits.js';

/**
 * True for a row whose expiry has not passed at `at`. Every owner-facing read of files (get,
 * latestByName, versions, list) filters with it, so an expired file is gone for the listing, its
 * content, lookups by name and the prompt file block the moment it expires, on every dialect;
 * the sweep (sweeper-queries.ts `expired`) only reclaims its row and blob later.
 */
export function unexpired(column: string, traits: CatalogTraits, at: Date): RawBuilder<boolean> {
  const expiresAt = sql.ref(column);
  return sql<boolean>`(${expiresAt} is null or ${expiresAt} > ${encodeTime(traits, at)})`;
}
