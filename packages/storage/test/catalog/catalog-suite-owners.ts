import { expect, it } from 'vitest';
import { addFile, type CatalogContext, expectFerryError, newUser, sha } from './catalog-fixtures.js';

// Owners can never see or touch each other's files: Bob tries every owner-scoped method with
// Alice's ids and names, and Alice's rows must come out exactly as they went in.

export function crossOwnerTests(ctx: CatalogContext): void {
  async function aliceAndBob() {
    const alice = await newUser(ctx.catalog, 'alice');
    const bob = await newUser(ctx.catalog, 'bob');
    const v1 = await addFile(ctx.catalog, alice, 'secret.csv', { size: 100, sessionId: 'shared-session' });
    const v2 = await addFile(ctx.catalog, alice, 'secret.csv', { size: 200, sessionId: 'shared-session' });
    const other = await addFile(ctx.catalog, alice, 'notes.txt', { size: 5 });
    const pending = await ctx.catalog.insertPending({
      owner: alice,
      name: 'secret.csv',
      mime: 'text/csv',
      source: 'uploaded',
    });
    const snapshot = async () => ({
      list: await ctx.catalog.list(alice, { allVersions: true }),
      usage: await ctx.catalog.usage(alice),
      versions: await ctx.catalog.versions(alice, 'secret.csv'),
    });
    return { alice, bob, v1, v2, other, pending, before: await snapshot(), snapshot };
  }

  it('reads: get, latestByName, versions, list and usage show Bob nothing of Alice', async () => {
    const { bob, v1, v2, other, pending } = await aliceAndBob();
    for (const id of [v1.id, v2.id, other.id, pending.id]) {
      expect(await ctx.catalog.get(bob, id)).toBeUndefined();
    }
    expect(await ctx.catalog.latestByName(bob, 'secret.csv')).toBeUndefined();
    expect(await ctx.catalog.versions(bob, 'secret.csv')).toEqual([]);
    expect(await ctx.catalog.list(bob, { allVersions: true })).toEqual({ items: [], total: 0 });
    expect(await ctx.catalog.list(bob, { query: 'secret', sessionId: 'shared-session' })).toEqual({
      items: [],
      total: 0,
    });
    expect(await ctx.catalog.usage(bob)).toEqual({ bytes: 0, count: 0 });
  });

  it('writes: finalize, rename, delete and deleteAllVersions with Alice ids change nothing', async () => {
    const { alice, bob, v1, v2, pending, before, snapshot } = await aliceAndBob();
    await expectFerryError(
      ctx.catalog.finalize(bob, pending.id, { size: 1, sha256: sha('x') }),
      'E_FILE_NOT_FOUND',
    );
    await expectFerryError(ctx.catalog.rename(bob, v1.id, 'stolen.csv'), 'E_FILE_NOT_FOUND');
    expect(await ctx.catalog.delete(bob, v2.id)).toEqual([]);
    expect(await ctx.catalog.delete(bob, pending.id)).toEqual([]);
    expect(await ctx.catalog.deleteAllVersions(bob, 'secret.csv')).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // Alice's pending upload survived Bob's attempts and still finalizes as her third version.
    expect((await ctx.catalog.finalize(alice, pending.id, { size: 1, sha256: sha('x') })).version).toBe(3);
  });

  it("deleteUser of Bob leaves Alice's rows; Alice's removes her ready and pending rows and user", async () => {
    const { alice, bob, v1, v2, other, pending, before, snapshot } = await aliceAndBob();
    const bobs = await addFile(ctx.catalog, bob, 'secret.csv', { size: 1 });
    expect(await ctx.catalog.deleteUser(bob)).toEqual([bobs.blobKey]);
    expect(await ctx.catalog.getUser(bob)).toBeUndefined();
    expect(await snapshot()).toEqual(before);
    const keys = await ctx.catalog.deleteUser(alice);
    expect([...keys].sort()).toEqual([v1.blobKey, v2.blobKey, other.blobKey, pending.blobKey].sort());
    expect(await ctx.catalog.getUser(alice)).toBeUndefined();
    expect(await ctx.catalog.sessionFiles('shared-session')).toEqual([]);
    expect(await ctx.catalog.deleteUser(alice)).toEqual([]);
  });

  it('names and versions are per owner: the same name on both sides never mixes', async () => {
    const { alice, bob, before, snapshot } = await aliceAndBob();
    const bobs = await addFile(ctx.catalog, bob, 'secret.csv', { size: 1 });
    expect(bobs.version).toBe(1);
    const bobNotes = await addFile(ctx.catalog, bob, 'mine.txt');
    // Alice has notes.txt; Bob may still take that name.
    expect((await ctx.catalog.rename(bob, bobNotes.id, 'notes.txt')).name).toBe('notes.txt');
    expect((await ctx.catalog.latestByName(bob, 'secret.csv'))?.id).toBe(bobs.id);
    expect(await ctx.catalog.deleteAllVersions(bob, 'secret.csv')).toEqual([bobs.blobKey]);
    expect(await snapshot()).toEqual(before);
    expect(await ctx.catalog.usage(bob)).toEqual({ bytes: 10, count: 1 });
    expect((await ctx.catalog.usage(alice)).count).toBe(3);
  });

  it("Bob cannot insert a row reusing Alice's file id or blob key", async () => {
    const { bob, v1, before, snapshot } = await aliceAndBob();
    // Blob keys are unique across the catalog, so no row can alias another owner's bytes.
    const row = { owner: bob, name: 'x', mime: 'text/plain', source: 'uploaded' } as const;
    await expectFerryError(ctx.catalog.insertPending({ ...row, blobKey: v1.blobKey }), 'E_INVALID_INPUT');
    await expectFerryError(ctx.catalog.insertPending({ ...row, id: v1.id }), 'E_INVALID_INPUT');
    expect(await snapshot()).toEqual(before);
  });
}
