import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { FileRecord } from '../../src/catalog/types.js';
import { addFile, type CatalogContext, expectFerryError, newUser, sleep } from './catalog-fixtures.js';

const names = (files: FileRecord[]) => files.map((f) => f.name);

export function listingTests(ctx: CatalogContext): void {
  /** Five logical files, one with two versions; created one after another. */
  async function seed() {
    const owner = await newUser(ctx.catalog);
    const made: FileRecord[] = [];
    const specs = [
      { name: 'beta.csv', size: 300, source: 'uploaded' as const, sessionId: 's1' },
      { name: 'Alpha.txt', size: 2 ** 33, source: 'generated' as const, sessionId: 's1' },
      { name: 'gamma_1.png', size: 50, source: 'deferred' as const },
      { name: 'delta%.md', size: 7, source: 'uploaded' as const, sessionId: 's2' },
      { name: 'beta.csv', size: 5, source: 'uploaded' as const, sessionId: 's2' },
      { name: 'epsilon.json', size: 1000, source: 'generated' as const },
    ];
    for (const spec of specs) {
      // Distinct created_at values for the 'created' sort (the clock has millisecond steps).
      await sleep(3);
      made.push(await addFile(ctx.catalog, owner, spec.name, spec));
    }
    return { owner, made };
  }

  it('lists the latest version of each name, sorted by name, size or creation, both orders', async () => {
    const { owner, made } = await seed();
    const byName = await ctx.catalog.list(owner);
    expect(names(byName.items)).toEqual([
      'Alpha.txt',
      'beta.csv',
      'delta%.md',
      'epsilon.json',
      'gamma_1.png',
    ]);
    expect(byName.total).toBe(5);
    expect(byName.items[1]).toEqual(made[4]);

    const desc = await ctx.catalog.list(owner, { sort: 'name', order: 'desc' });
    expect(names(desc.items)).toEqual(['gamma_1.png', 'epsilon.json', 'delta%.md', 'beta.csv', 'Alpha.txt']);
    const bySize = await ctx.catalog.list(owner, { sort: 'size', order: 'desc' });
    expect(bySize.items.map((f) => f.size)).toEqual([2 ** 33, 1000, 50, 7, 5]);
    const byCreated = await ctx.catalog.list(owner, { sort: 'created', order: 'asc' });
    expect(names(byCreated.items)).toEqual([
      'Alpha.txt',
      'gamma_1.png',
      'delta%.md',
      'beta.csv',
      'epsilon.json',
    ]);

    const all = await ctx.catalog.list(owner, { allVersions: true });
    expect(all.total).toBe(6);
    expect(all.items.filter((f) => f.name === 'beta.csv').map((f) => f.version)).toEqual([2, 1]);
  });

  it('filters by source, session and case-insensitive substring with literal wildcards', async () => {
    const { owner } = await seed();
    expect(names((await ctx.catalog.list(owner, { source: 'generated' })).items)).toEqual([
      'Alpha.txt',
      'epsilon.json',
    ]);
    expect(names((await ctx.catalog.list(owner, { sessionId: 's2' })).items)).toEqual([
      'beta.csv',
      'delta%.md',
    ]);
    // Version 1 of beta.csv is in s1 but is not the latest, so only allVersions shows it.
    expect(names((await ctx.catalog.list(owner, { sessionId: 's1' })).items)).toEqual(['Alpha.txt']);
    expect((await ctx.catalog.list(owner, { sessionId: 's1', allVersions: true })).total).toBe(2);
    expect(names((await ctx.catalog.list(owner, { query: 'ALPHA' })).items)).toEqual(['Alpha.txt']);
    expect(names((await ctx.catalog.list(owner, { query: 'a.' })).items)).toEqual(['Alpha.txt', 'beta.csv']);
    expect(names((await ctx.catalog.list(owner, { query: '%' })).items)).toEqual(['delta%.md']);
    expect(names((await ctx.catalog.list(owner, { query: '_' })).items)).toEqual(['gamma_1.png']);
    expect(names((await ctx.catalog.list(owner, { query: 'zzz' })).items)).toEqual([]);
    const both = await ctx.catalog.list(owner, { source: 'uploaded', query: 'ETA', sessionId: 's2' });
    expect(names(both.items)).toEqual(['beta.csv']);
  });

  it('pages with limit and offset without overlap; total ignores paging', async () => {
    const { owner } = await seed();
    const seen: string[] = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const page = await ctx.catalog.list(owner, { sort: 'size', limit: 2, offset });
      expect(page.total).toBe(5);
      seen.push(...names(page.items));
    }
    expect(seen).toEqual(['beta.csv', 'delta%.md', 'gamma_1.png', 'epsilon.json', 'Alpha.txt']);
    expect(await ctx.catalog.list(owner, { offset: 50 })).toEqual({ items: [], total: 5 });
    // A full page, a page ending exactly at the last row and an empty page right after it.
    expect((await ctx.catalog.list(owner, { limit: 4, offset: 1 })).total).toBe(5);
    expect((await ctx.catalog.list(owner, { limit: 5 })).total).toBe(5);
    expect(await ctx.catalog.list(owner, { limit: 5, offset: 5 })).toEqual({ items: [], total: 5 });
    expect((await ctx.catalog.list(owner, { limit: 9, offset: 3 })).total).toBe(5);
    await expectFerryError(ctx.catalog.list(owner, { limit: 0 }), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.list(owner, { limit: 1.5 }), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.list(owner, { offset: -1 }), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.list(owner, { sort: 'owner' as never }), 'E_INVALID_INPUT');
  });

  it("a full page's total is the number of rows the whole listing holds, for every filter", async () => {
    // list-files.ts counts a full page's total another way than it lists (distinct names without
    // a source or session filter); a short page's total is what it lists. Both must agree.
    const owner = await newUser(ctx.catalog);
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + 3_600_000);
    await addFile(ctx.catalog, owner, 'plain.txt');
    await addFile(ctx.catalog, owner, 'PLAIN.txt');
    await addFile(ctx.catalog, owner, 'two.txt', { sessionId: 's1' });
    await addFile(ctx.catalog, owner, 'two.txt', { sessionId: 's2' });
    // Newest version expired: the older one is the latest, and is counted once.
    await addFile(ctx.catalog, owner, 'expiring.txt');
    await addFile(ctx.catalog, owner, 'expiring.txt', { expiresAt: past });
    await addFile(ctx.catalog, owner, 'gone.txt', { expiresAt: past });
    await addFile(ctx.catalog, owner, 'later.txt', { expiresAt: future });
    // The latest version is generated, an older one uploaded: source=uploaded must not show it.
    await addFile(ctx.catalog, owner, 'mixed.csv', { source: 'uploaded', sessionId: 's1' });
    await addFile(ctx.catalog, owner, 'mixed.csv', { source: 'generated' });
    await ctx.catalog.insertPending({ owner, name: 'pending.txt', mime: 'text/plain', source: 'uploaded' });

    const filters = [
      {},
      { query: 'txt' },
      { query: 'plain' },
      { source: 'uploaded' as const },
      { source: 'generated' as const },
      { sessionId: 's1' },
      { sessionId: 's2' },
      { allVersions: true },
      { allVersions: true, sessionId: 's1' },
      { query: 'two', allVersions: true },
    ];
    for (const filter of filters) {
      const whole = await ctx.catalog.list(owner, { ...filter, limit: 1000 });
      for (const limit of [1, 2]) {
        const page = await ctx.catalog.list(owner, { ...filter, limit });
        expect(page.total, JSON.stringify({ ...filter, limit })).toBe(whole.items.length);
      }
    }
    expect(names((await ctx.catalog.list(owner)).items)).toEqual([
      'expiring.txt',
      'later.txt',
      'mixed.csv',
      'PLAIN.txt',
      'plain.txt',
      'two.txt',
    ]);
    expect((await ctx.catalog.list(owner, { source: 'uploaded', limit: 1 })).total).toBe(5);
  });

  it('rename moves every version of the name; later uploads of the old name start again at 1', async () => {
    const owner = await newUser(ctx.catalog);
    const v1 = await addFile(ctx.catalog, owner, 'draft.md');
    const v2 = await addFile(ctx.catalog, owner, 'draft.md');
    const renamed = await ctx.catalog.rename(owner, v1.id, 'final.md');
    expect(renamed).toEqual({ ...v1, name: 'final.md' });
    expect((await ctx.catalog.versions(owner, 'final.md')).map((f) => f.id)).toEqual([v2.id, v1.id]);
    expect(await ctx.catalog.versions(owner, 'draft.md')).toEqual([]);
    expect((await addFile(ctx.catalog, owner, 'draft.md')).version).toBe(1);
    expect((await addFile(ctx.catalog, owner, 'final.md')).version).toBe(3);
    // Renaming to its own name changes nothing.
    expect(await ctx.catalog.rename(owner, v2.id, 'final.md')).toEqual({ ...v2, name: 'final.md' });
  });

  it('rename onto an existing name fails clearly and changes nothing', async () => {
    const owner = await newUser(ctx.catalog);
    const a = await addFile(ctx.catalog, owner, 'a.txt');
    const b = await addFile(ctx.catalog, owner, 'b.txt');
    await addFile(ctx.catalog, owner, 'b.txt');
    const before = await ctx.catalog.list(owner, { allVersions: true });
    const error = await ctx.catalog.rename(owner, a.id, 'b.txt').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_INVALID_INPUT', details: { field: 'name', name: 'b.txt' } });
    expect((error as Error).message).toContain('b.txt');
    await expectFerryError(ctx.catalog.rename(owner, b.id, 'a.txt'), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.rename(owner, a.id, ''), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.rename(owner, randomUUID(), 'c.txt'), 'E_FILE_NOT_FOUND');
    expect(await ctx.catalog.list(owner, { allVersions: true })).toEqual(before);
  });

  it('usage counts ready versions of one owner; stats count everything', async () => {
    const owner = await newUser(ctx.catalog);
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: 0, count: 0 });
    const before = await ctx.catalog.stats();
    await addFile(ctx.catalog, owner, 'a.bin', { size: 2 ** 32 + 1 });
    await addFile(ctx.catalog, owner, 'a.bin', { size: 3 });
    await ctx.catalog.insertPending({ owner, name: 'p.bin', mime: 'text/plain', source: 'uploaded' });
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: 2 ** 32 + 4, count: 2 });
    const after = await ctx.catalog.stats();
    // Other tests may run against the same database, so compare at least the deltas we caused.
    expect(after.files - before.files).toBeGreaterThanOrEqual(2);
    expect(after.bytes - before.bytes).toBeGreaterThanOrEqual(2 ** 32 + 4);
    expect(after.pending - before.pending).toBeGreaterThanOrEqual(1);
    expect(after.users).toBeGreaterThanOrEqual(1);
  });
}
