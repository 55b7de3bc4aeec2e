import Database from 'better-sqlite3';
import { type Generated, Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheStatements } from '../../src/catalog/statement-cache.js';

interface Tables {
  items: { id: Generated<number>; name: string };
}

/** A real in-memory database whose `prepare` calls are counted by SQL text. */
function countingDatabase() {
  const database = new Database(':memory:');
  const prepared: string[] = [];
  let closed = false;
  return {
    database,
    prepared,
    isClosed: () => closed,
    raw: {
      prepare(text: string) {
        prepared.push(text);
        return database.prepare(text);
      },
      close() {
        closed = true;
        database.close();
      },
    },
  };
}

describe('cacheStatements', () => {
  let db: Kysely<Tables> | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
  });

  async function open(maxEntries?: number) {
    const counting = countingDatabase();
    const database = cacheStatements(counting.raw, maxEntries === undefined ? {} : { maxEntries });
    db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
    await db.schema
      .createTable('items')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
    return { db, ...counting };
  }

  it('prepares a query once and gives each run its own bindings', async () => {
    const { db, prepared } = await open();
    for (const [id, name] of [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ] as const) {
      await db.insertInto('items').values({ id, name }).execute();
    }
    const byName = (name: string) => db.selectFrom('items').select(['id', 'name']).where('name', '=', name);

    expect(await byName('b').execute()).toEqual([{ id: 2, name: 'b' }]);
    expect(await byName('c').execute()).toEqual([{ id: 3, name: 'c' }]);
    expect(await byName('zz').execute()).toEqual([]);

    const selectSql = byName('x').compile().sql;
    expect(prepared.filter((text) => text === selectSql)).toHaveLength(1);
    const insertSql = db.insertInto('items').values({ id: 9, name: 'x' }).compile().sql;
    expect(prepared.filter((text) => text === insertSql)).toHaveLength(1);
  });

  it('keeps writes reporting rows affected and insert ids', async () => {
    const { db } = await open();
    const first = await db.insertInto('items').values({ name: 'a' }).executeTakeFirstOrThrow();
    const second = await db.insertInto('items').values({ name: 'b' }).executeTakeFirstOrThrow();
    expect([first.insertId, second.insertId]).toEqual([1n, 2n]);
    const updated = await db.updateTable('items').set({ name: 'z' }).executeTakeFirstOrThrow();
    expect(updated.numUpdatedRows).toBe(2n);
  });

  it('commits and rolls back transactions through cached begin/commit/rollback', async () => {
    const { db, prepared } = await open();
    for (let i = 0; i < 3; i++) {
      await db.transaction().execute((trx) =>
        trx
          .insertInto('items')
          .values({ name: `kept${i}` })
          .execute(),
      );
      await expect(
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('items')
            .values({ name: `lost${i}` })
            .execute();
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
    }
    const names = await db.selectFrom('items').select('name').orderBy('id').execute();
    expect(names.map((row) => row.name)).toEqual(['kept0', 'kept1', 'kept2']);
    expect(prepared.filter((text) => text === 'begin')).toHaveLength(1);
    expect(prepared.filter((text) => text === 'commit')).toHaveLength(1);
    expect(prepared.filter((text) => text === 'rollback')).toHaveLength(1);
  });

  it('drops the least recently used statement past maxEntries', async () => {
    const { db, prepared } = await open(2);
    const q = (n: number) => sql<{ n: number }>`select ${sql.lit(n)} as n`;
    await q(1).execute(db);
    await q(2).execute(db);
    await q(1).execute(db); // 1 is now the most recent, so 3 pushes out 2
    await q(3).execute(db);
    await q(1).execute(db);
    expect((await q(2).execute(db)).rows).toEqual([{ n: 2 }]);
    const count = (n: number) => prepared.filter((text) => text === `select ${n} as n`).length;
    expect([count(1), count(2), count(3)]).toEqual([1, 2, 1]);
  });

  it('closes the database when Kysely is destroyed', async () => {
    const opened = await open();
    await opened.db.selectFrom('items').selectAll().execute();
    await opened.db.destroy();
    db = undefined;
    expect(opened.isClosed()).toBe(true);
    expect(opened.database.open).toBe(false);
  });
});
