import { type Kysely, type RawBuilder, sql } from 'kysely';
import { expect, it } from 'vitest';
import type { CatalogTables } from '../../src/catalog/tables.js';
import { addFile, type CatalogContext, newUser, sleep } from './catalog-fixtures.js';

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

  it('a date-sorted listing reads the owner rows in created order through files_owner_created_order', async () => {
    const { db, traits } = ctx.catalog.database;
    const owner = await newUser(ctx.catalog);
    for (const name of ['b.txt', 'A.txt', 'c.txt']) {
      // Distinct created_at values (the clock has millisecond steps).
      await sleep(3);
      await addFile(ctx.catalog, owner, name);
    }
    // The ORDER BY of list-files.ts for sort 'created': created_at, then the name order.
    const collate = sql.raw(`collate ${traits.binaryCollation}`);
    const pageOf = (order: 'asc' | 'desc') =>
      sql`select id, name from files where owner = ${owner} and status = 'ready'
        order by created_at ${sql.raw(order)}, lower(name) ${collate} ${sql.raw(order)},
        name ${collate} ${sql.raw(order)}, version desc, id asc limit 50`;

    const ascending = await planOf(db, traits.dialect, pageOf('asc'));
    expect(ascending).toContain('files_owner_created_order');
    expect(ascending).not.toMatch(/TEMP B-TREE|Sort/);
    // Backwards, the index gives every term but the version/id tie-break of one name: a sort of
    // the ties only (SQLite "FOR LAST 2 TERMS", PostgreSQL Incremental Sort), never a full one.
    // (PostgreSQL without statistics may as well walk files_status_created_at backwards: also
    // presorted on created_at, so only the index name is left to SQLite here.)
    const descending = await planOf(db, traits.dialect, pageOf('desc'));
    if (traits.dialect === 'sqlite') expect(descending).toContain('files_owner_created_order');
    expect(descending).not.toMatch(/TEMP B-TREE FOR ORDER BY|(^|-> +)Sort +\(/m);

    const { rows } = await pageOf('desc').execute(db);
    expect(rows.map((row) => (row as { name: string }).name)).toEqual(['c.txt', 'A.txt', 'b.txt']);
  });
}
