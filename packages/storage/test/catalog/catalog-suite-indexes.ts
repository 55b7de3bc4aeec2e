import { type Kysely, type RawBuilder, sql } from 'kysely';
import { expect, it } from 'vitest';
import type { CatalogTables } from '../../src/catalog/tables.js';
import { addFile, type CatalogContext, newUser } from './catalog-fixtures.js';

/** The query plan as text lines, from whichever dialect the catalog runs on. */
async function planOf(
  db: Kysely<CatalogTables>,
  dialect: string,
  query: RawBuilder<unknown>,
): Promise<string> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(db);
    return rows.map((row) => row.detail).join('\n');
  }
  // A few rows make a sequential scan plus sort cheapest for PostgreSQL; ruling both out shows
  // whether an index can give the order at all.
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

export function indexTests(ctx: CatalogContext): void {
  it('pages of a name-sorted listing come in index order, without sorting all of the owner rows', async () => {
    const { db, traits } = ctx.catalog.database;
    const owner = await newUser(ctx.catalog);
    for (const name of ['b.txt', 'A.txt', 'c.txt']) await addFile(ctx.catalog, owner, name);
    // The ORDER BY of list-files.ts for sort 'name', order 'asc'.
    const collate = sql.raw(`collate ${traits.binaryCollation}`);
    const page = sql`select id, name from files where owner = ${owner} and status = 'ready'
      order by lower(name) ${collate} asc, name ${collate} asc, version desc, id asc limit 50`;

    const plan = await planOf(db, traits.dialect, page);
    expect(plan).toContain('files_owner_lower_name');
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
    const { rows } = await page.execute(db);
    expect(rows.map((row) => (row as { name: string }).name)).toEqual(['A.txt', 'b.txt', 'c.txt']);
  });
}
