// The SQLite catalog's listing cache (listing-cache.ts): an answer is reused only while no write of
// this connection, no commit of another connection and no expiry has happened since.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cacheListings } from '../../src/catalog/listing-cache.js';
import { createSqliteCatalog } from '../../src/catalog/sqlite.js';
import type { Catalog } from '../../src/catalog/types.js';
import { addFile, newUser } from './catalog-fixtures.js';
import { dialectEnabled } from './dialects.js';

const names = async (catalog: Catalog, owner: string, limit = 50) =>
  (await catalog.list(owner, { limit })).items.map((file) => file.name);

describe.skipIf(!dialectEnabled('sqlite'))('sqlite listing cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-listing-cache-'));
  const open: Catalog[] = [];
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => new Date(clock);
  const catalogAt = async (filename: string) => {
    const catalog = await createSqliteCatalog({ filename, now });
    open.push(catalog);
    return catalog;
  };
  afterEach(async () => {
    for (const catalog of open.splice(0)) await catalog.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reuses an answer only under the same change stamp', async () => {
    // The mechanism itself, with a stamp the test holds: a write the stamp does not see is not
    // seen (so answers are reused), and a new stamp recomputes.
    const catalog = await catalogAt(join(dir, 'stamp.db'));
    const owner = await newUser(catalog);
    await addFile(catalog, owner, 'a.txt');
    let stamp = 'one';
    const list = cacheListings({ ...catalog.database, now } as Parameters<typeof cacheListings>[0], {
      stamp: () => stamp,
    });
    expect((await list(owner)).items.map((f) => f.name)).toEqual(['a.txt']);
    await addFile(catalog, owner, 'b.txt');
    expect((await list(owner)).items.map((f) => f.name)).toEqual(['a.txt']);
    stamp = 'two';
    expect((await list(owner)).items.map((f) => f.name)).toEqual(['a.txt', 'b.txt']);
  });

  it("sees every write of its own: add, rename, delete, and a full page's total", async () => {
    const catalog = await catalogAt(join(dir, 'own.db'));
    const owner = await newUser(catalog);
    const a = await addFile(catalog, owner, 'a.txt');
    await addFile(catalog, owner, 'b.txt');
    expect(await names(catalog, owner)).toEqual(['a.txt', 'b.txt']);
    expect((await catalog.list(owner, { limit: 1 })).total).toBe(2);
    await addFile(catalog, owner, 'c.txt');
    expect(await names(catalog, owner)).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect((await catalog.list(owner, { limit: 1 })).total).toBe(3);
    await catalog.rename(owner, a.id, 'z.txt');
    expect(await names(catalog, owner)).toEqual(['b.txt', 'c.txt', 'z.txt']);
    await catalog.delete(owner, a.id);
    expect(await names(catalog, owner)).toEqual(['b.txt', 'c.txt']);
  });

  it('sees commits of another connection or process on the same file', async () => {
    const filename = join(dir, 'shared.db');
    const catalog = await catalogAt(filename);
    const owner = await newUser(catalog);
    await addFile(catalog, owner, 'a.txt');
    expect(await names(catalog, owner)).toEqual(['a.txt']);
    const other = await catalogAt(filename);
    const b = await addFile(other, owner, 'b.txt');
    expect(await names(catalog, owner)).toEqual(['a.txt', 'b.txt']);
    // A bare connection, as another tool or process would write.
    const raw = new Database(filename);
    try {
      raw.prepare('delete from files where id = ?').run(b.id);
    } finally {
      raw.close();
    }
    expect(await names(catalog, owner)).toEqual(['a.txt']);
  });

  it('drops a file the moment it expires, with no write in between', async () => {
    const catalog = await catalogAt(join(dir, 'expiry.db'));
    const owner = await newUser(catalog);
    await addFile(catalog, owner, 'stays.txt');
    await addFile(catalog, owner, 'goes.txt', { expiresAt: new Date(clock + 1000) });
    await addFile(catalog, owner, 'later.txt', { expiresAt: new Date(clock + 5000) });
    expect(await names(catalog, owner)).toEqual(['goes.txt', 'later.txt', 'stays.txt']);
    clock += 999;
    expect(await names(catalog, owner)).toEqual(['goes.txt', 'later.txt', 'stays.txt']);
    clock += 1;
    expect(await names(catalog, owner)).toEqual(['later.txt', 'stays.txt']);
    clock += 4000;
    expect(await names(catalog, owner)).toEqual(['stays.txt']);
  });

  it('get: a row is read again after any write, a commit elsewhere, or its expiry', async () => {
    const filename = join(dir, 'get.db');
    const catalog = await catalogAt(filename);
    const owner = await newUser(catalog);
    const file = await addFile(catalog, owner, 'a.txt', { expiresAt: new Date(clock + 2000) });
    expect((await catalog.get(owner, file.id))?.name).toBe('a.txt');
    expect((await catalog.get(owner, file.id))?.name).toBe('a.txt');
    await catalog.rename(owner, file.id, 'b.txt');
    expect((await catalog.get(owner, file.id))?.name).toBe('b.txt');
    // Another owner never gets the row, cached or not.
    expect(await catalog.get(await newUser(catalog), file.id)).toBeUndefined();

    const raw = new Database(filename);
    try {
      raw.prepare('update files set name = ? where id = ?').run('c.txt', file.id);
    } finally {
      raw.close();
    }
    expect((await catalog.get(owner, file.id))?.name).toBe('c.txt');
    clock += 2000;
    expect(await catalog.get(owner, file.id)).toBeUndefined();

    const kept = await addFile(catalog, owner, 'd.txt');
    expect((await catalog.get(owner, kept.id))?.id).toBe(kept.id);
    await catalog.delete(owner, kept.id);
    expect(await catalog.get(owner, kept.id)).toBeUndefined();
  });

  it("getUser and usage: a user's row and usage follow every write, here or elsewhere", async () => {
    const filename = join(dir, 'users.db');
    const catalog = await catalogAt(filename);
    const owner = await newUser(catalog);
    expect((await catalog.getUser(owner))?.quotaBytes).toBeNull();
    expect(await catalog.usage(owner)).toEqual({ bytes: 0, count: 0 });
    await catalog.updateUser(owner, { quotaBytes: 1000, flags: { persist_files_across_sessions: false } });
    expect(await catalog.getUser(owner)).toMatchObject({
      quotaBytes: 1000,
      flags: { persist_files_across_sessions: false },
    });
    // What a caller does to its answer stays with it.
    const user = await catalog.getUser(owner);
    (user?.flags as Record<string, unknown>).persist_files_across_sessions = true;
    expect((await catalog.getUser(owner))?.flags).toEqual({ persist_files_across_sessions: false });

    await addFile(catalog, owner, 'a.bin', { size: 7 });
    expect(await catalog.usage(owner)).toEqual({ bytes: 7, count: 1 });
    const raw = new Database(filename);
    try {
      raw.prepare('update users set quota_bytes = 5 where id = ?').run(owner);
      raw.prepare('update files set size = 9 where owner = ?').run(owner);
    } finally {
      raw.close();
    }
    expect((await catalog.getUser(owner))?.quotaBytes).toBe(5);
    expect(await catalog.usage(owner)).toEqual({ bytes: 9, count: 1 });
  });

  it('keeps owners and options apart, and hands out copies', async () => {
    const catalog = await catalogAt(join(dir, 'keys.db'));
    const alice = await newUser(catalog);
    const bob = await newUser(catalog);
    await addFile(catalog, alice, 'alice.txt');
    await addFile(catalog, bob, 'bob.txt');
    expect(await names(catalog, alice)).toEqual(['alice.txt']);
    expect(await names(catalog, bob)).toEqual(['bob.txt']);
    expect((await catalog.list(alice, { query: 'nothing' })).items).toEqual([]);
    const first = await catalog.list(alice);
    (first.items[0] as { name: string }).name = 'edited';
    first.items.length = 0;
    expect(await names(catalog, alice)).toEqual(['alice.txt']);
  });
});
