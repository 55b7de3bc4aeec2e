import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { addFile, type CatalogContext, newUser } from './catalog-fixtures.js';

// The sweeper's queries look across owners, so the assertions keep to this test's own rows:
// the year-2000 expiry dates and random session ids are used nowhere else in the suite.

export function sweeperTests(ctx: CatalogContext): void {
  it('expired returns ready rows of every owner whose expiry has passed, oldest first, up to limit', async () => {
    const alice = await newUser(ctx.catalog, 'alice');
    const bob = await newUser(ctx.catalog, 'bob');
    const at = (iso: string) => new Date(iso);
    const first = await addFile(ctx.catalog, alice, 'a.txt', {
      source: 'deferred',
      expiresAt: at('2000-01-01T00:00:01Z'),
    });
    const second = await addFile(ctx.catalog, bob, 'b.txt', {
      source: 'deferred',
      expiresAt: at('2000-01-15T00:00:00Z'),
    });
    const later = await addFile(ctx.catalog, alice, 'c.txt', { expiresAt: at('2000-03-01T00:00:00Z') });
    const never = await addFile(ctx.catalog, alice, 'd.txt');
    await ctx.catalog.insertPending({
      owner: alice,
      name: 'pending.txt',
      mime: 'text/plain',
      source: 'deferred',
      expiresAt: at('2000-01-02T00:00:00Z'),
    });

    const now = at('2000-02-01T00:00:00Z');
    const ours = new Set([alice, bob]);
    const expired = (await ctx.catalog.expired(now, 100)).filter((f) => ours.has(f.owner));
    expect(expired.map((f) => f.id)).toEqual([first.id, second.id]);
    expect(expired[0]).toEqual(first);
    expect((await ctx.catalog.expired(now, 1)).map((f) => f.id)).toEqual([first.id]);
    const exactlyAtExpiry = await ctx.catalog.expired(at('2000-01-01T00:00:01Z'), 100);
    expect(exactlyAtExpiry.map((f) => f.id)).not.toContain(first.id);
    const everything = await ctx.catalog.expired(at('2100-01-01T00:00:00Z'), 10_000);
    expect(everything.map((f) => f.id)).toContain(later.id);
    expect(everything.map((f) => f.id)).not.toContain(never.id);
  });

  it('reads never see a row whose expiry has passed, swept or not; expired still finds it', async () => {
    const owner = await newUser(ctx.catalog);
    const past = new Date(Date.now() - 1000);
    const future = new Date(Date.now() + 3_600_000);
    const gone = await addFile(ctx.catalog, owner, 'gone.md', { source: 'deferred', expiresAt: past });
    const live = await addFile(ctx.catalog, owner, 'live.md', { source: 'deferred', expiresAt: future });
    // A name whose newest version expired: its older version is the latest again.
    const v1 = await addFile(ctx.catalog, owner, 'notes.md');
    const v2 = await addFile(ctx.catalog, owner, 'notes.md', { source: 'deferred', expiresAt: past });
    expect([gone.version, v1.version, v2.version]).toEqual([1, 1, 2]);

    expect(await ctx.catalog.get(owner, gone.id)).toBeUndefined();
    expect(await ctx.catalog.get(owner, v2.id)).toBeUndefined();
    expect(await ctx.catalog.get(owner, live.id)).toEqual(live);
    expect(await ctx.catalog.latestByName(owner, 'gone.md')).toBeUndefined();
    expect(await ctx.catalog.latestByName(owner, 'notes.md')).toEqual(v1);
    expect(await ctx.catalog.versions(owner, 'gone.md')).toEqual([]);
    expect(await ctx.catalog.versions(owner, 'notes.md')).toEqual([v1]);
    const latest = await ctx.catalog.list(owner);
    expect(latest.items.map((f) => [f.name, f.version])).toEqual([
      ['live.md', 1],
      ['notes.md', 1],
    ]);
    expect(latest.total).toBe(2);
    const all = await ctx.catalog.list(owner, { allVersions: true });
    expect(all.items.map((f) => f.id)).toEqual([live.id, v1.id]);
    expect((await ctx.catalog.list(owner, { source: 'deferred' })).items.map((f) => f.id)).toEqual([live.id]);
    expect((await ctx.catalog.list(owner, { query: 'gone' })).total).toBe(0);

    // Still there for the sweeper, which reclaims the space.
    const expired = (await ctx.catalog.expired(new Date(), 10_000)).filter((f) => f.owner === owner);
    expect(expired.map((f) => f.id).sort()).toEqual([gone.id, v2.id].sort());
  });

  it('sessionFiles returns the ready session-only rows of that session, for every owner', async () => {
    const alice = await newUser(ctx.catalog, 'alice');
    const bob = await newUser(ctx.catalog, 'bob');
    const session = `session-${randomUUID()}`;
    const temp = await addFile(ctx.catalog, alice, 'temp.txt', { sessionId: session, persist: false });
    const bobs = await addFile(ctx.catalog, bob, 'temp.txt', { sessionId: session, persist: false });
    await addFile(ctx.catalog, alice, 'kept.txt', { sessionId: session, persist: true });
    await addFile(ctx.catalog, alice, 'elsewhere.txt', { sessionId: `${session}-other`, persist: false });
    await ctx.catalog.insertPending({
      owner: alice,
      name: 'half.txt',
      mime: 'text/plain',
      source: 'uploaded',
      sessionId: session,
      persist: false,
    });
    const files = await ctx.catalog.sessionFiles(session);
    expect(files.map((f) => f.id).sort()).toEqual([temp.id, bobs.id].sort());
    expect(files.every((f) => !f.persist && f.sessionId === session)).toBe(true);
    expect(await ctx.catalog.sessionFiles(`${session}-none`)).toEqual([]);
  });

  it('idleSessions names sessions whose newest session-only file is older than the cutoff', async () => {
    const owner = await newUser(ctx.catalog);
    const session = `session-${randomUUID()}`;
    const kept = `session-${randomUUID()}`;
    await addFile(ctx.catalog, owner, 'temp.txt', { sessionId: session, persist: false });
    await addFile(ctx.catalog, owner, 'saved.txt', { sessionId: kept, persist: true });
    const future = new Date(Date.now() + 60_000);
    const idle = await ctx.catalog.idleSessions(future, 100_000);
    expect(idle).toContain(session);
    // A session with only saved files has nothing to end.
    expect(idle).not.toContain(kept);
    // Its newest file is newer than a cutoff in the past: not idle.
    expect(await ctx.catalog.idleSessions(new Date(Date.now() - 60_000), 100_000)).not.toContain(session);
  });

  it('stalePending returns pending rows created before the cutoff, with their blob keys', async () => {
    const owner = await newUser(ctx.catalog);
    const pending = await ctx.catalog.insertPending({
      owner,
      name: 'crash.bin',
      mime: 'text/plain',
      source: 'uploaded',
    });
    const done = await addFile(ctx.catalog, owner, 'fine.bin');
    const future = new Date(Date.now() + 60_000);
    const stale = (await ctx.catalog.stalePending(future, 100_000)).filter((p) => p.owner === owner);
    expect(stale).toEqual([{ ...pending, createdAt: expect.any(Date) }]);
    expect(stale[0]?.createdAt.getTime()).toBe(pending.createdAt.getTime());
    expect(stale.map((p) => p.id)).not.toContain(done.id);
    const past = await ctx.catalog.stalePending(new Date(Date.now() - 60_000));
    expect(past.map((p) => p.id)).not.toContain(pending.id);
  });
}
