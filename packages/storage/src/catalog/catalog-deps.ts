import type { Kysely } from 'kysely';
import type { CatalogTables } from './tables.js';
import type { CatalogTraits } from './traits.js';

/** What every part of the catalog is built from. */
export interface CatalogDeps {
  db: Kysely<CatalogTables>;
  traits: CatalogTraits;
  now: () => Date;
}
