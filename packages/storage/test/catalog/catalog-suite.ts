import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog, NewPendingFile } from '../../src/catalog/types.js';
import { addFile, type CatalogContext, expectFerryError, newUser, sha } from './catalog-fixtures.js';
import { indexTests } from './catalog-suite-indexes.js';
import { listingTests } from './catalog-suite-listing.js';
import { crossOwnerTests } from './catalog-suite-owners.js';
import { quotaTests } from './catalog-suite-quota.js';
import { sweeperTests } from './catalog-suite-sweeper.js';

/**
 * The catalog contract, run on every dialect (as unstorage's testDriver). `makeCatalog` opens a
 * new catalog over the same database each time it is called; the suite closes what it opened.
 * Tests share that database, so each one works with fresh users.
 */
export function describeCatalog(
  name: string,
  makeCatalog: () => Promise<Catalog>,
  additionalTests?: (ctx: CatalogContext) => void,
): void {
  describe(`catalog: ${name}`, () => {
    const opened: Catalog[] = [];
    let main: Catalog | undefined;
    let openError: unknown;
    const ctx: CatalogContext = {
      // A backend that cannot be opened fails every test with the reason, rather than the
      // hook failing and the tests being reported as skipped.
      get catalog() {
        if (!main) throw openError ?? new Error(`catalog ${name} is not open`);
        return main;
      },
      async open() {
        const catalog = await makeCatalog();
        opened.push(catalog);
        return catalog;
      },
    };
    beforeAll(async () => {
      try {
        main = await ctx.open();
      } catch (error) {
        openError = error;
      }
    });
    afterAll(async () => {
      await Promise.all(opened.map((c) => c.close()));
    });

    basicTests(ctx);
    versioningTests(ctx);
    listingTests(ctx);
    sweeperTests(ctx);
    crossOwnerTests(ctx);
    quotaTests(ctx);
    indexTests(ctx);
    additionalTests?.(ctx);
  });
}

function basicTests(ctx: CatalogContext): void {
  it('migrations are idempotent: migrate again, and a second instance opens the same data', async () => {
    const owner = await newUser(ctx.catalog);
    const file = await addFile(ctx.catalog, owner, 'kept.txt');
    await ctx.catalog.migrate();
    await ctx.catalog.migrate();
    const second = await ctx.open();
    await second.migrate();
    expect(await second.get(owner, file.id)).toEqual(file);
  });

  it('ensureUser is idempotent and race-safe', async () => {
    const username = `alice-${randomUUID()}`;
    const ids = await Promise.all(Array.from({ length: 10 }, () => ctx.catalog.ensureUser(username)));
    expect(new Set(ids).size).toBe(1);
    expect(await ctx.catalog.ensureUser(username)).toBe(ids[0]);
    expect(await ctx.catalog.ensureUser(`${username}-2`)).not.toBe(ids[0]);
    const user = await ctx.catalog.getUser(ids[0] as string);
    expect(user).toMatchObject({ id: ids[0], username, quotaBytes: null, flags: null });
    expect(user?.createdAt).toBeInstanceOf(Date);
    await expectFerryError(ctx.catalog.ensureUser(''), 'E_INVALID_INPUT');
  });

  it('stores per-user quota (beyond 32 bits) and flag overrides', async () => {
    const id = await newUser(ctx.catalog);
    await ctx.catalog.updateUser(id, { quotaBytes: 2 ** 40, flags: { max_file_size_mb: 5 } });
    expect(await ctx.catalog.getUser(id)).toMatchObject({
      quotaBytes: 2 ** 40,
      flags: { max_file_size_mb: 5 },
    });
    await ctx.catalog.updateUser(id, { flags: null });
    expect(await ctx.catalog.getUser(id)).toMatchObject({ quotaBytes: 2 ** 40, flags: null });
    expect(await ctx.catalog.getUser(randomUUID())).toBeUndefined();
  });

  it('a pending row is invisible until finalize, then carries every field', async () => {
    const owner = await newUser(ctx.catalog);
    const expiresAt = new Date('2031-02-03T04:05:06.789Z');
    const pending = await ctx.catalog.insertPending({
      owner,
      name: 'report.csv',
      mime: 'application/octet-stream',
      source: 'generated',
      category: 'reports',
      description: 'Quarterly numbers',
      sessionId: 'session-1',
      persist: false,
      expiresAt,
    });
    expect(pending.blobKey).toBe(`users/${owner}/${pending.id}`);
    expect(await ctx.catalog.get(owner, pending.id)).toBeUndefined();
    expect(await ctx.catalog.latestByName(owner, 'report.csv')).toBeUndefined();

    const file = await ctx.catalog.finalize(owner, pending.id, {
      size: 1234,
      sha256: sha('x'),
      mime: 'text/csv',
      info: { rows: 10, columns: 3 },
    });
    expect(file).toEqual({
      id: pending.id,
      owner,
      name: 'report.csv',
      version: 1,
      size: 1234,
      mime: 'text/csv',
      sha256: sha('x'),
      source: 'generated',
      category: 'reports',
      description: 'Quarterly numbers',
      sessionId: 'session-1',
      persist: false,
      expiresAt,
      createdAt: expect.any(Date),
      info: { rows: 10, columns: 3 },
      blobKey: pending.blobKey,
    });
    expect(await ctx.catalog.get(owner, pending.id)).toEqual(file);
  });

  it('defaults: persistent, no expiry, no info; a given id and blob key are kept', async () => {
    const owner = await newUser(ctx.catalog);
    const id = randomUUID();
    const file = await addFile(ctx.catalog, owner, 'plain.txt', { id, blobKey: `custom/${id}` });
    expect(file).toMatchObject({ id, blobKey: `custom/${id}`, persist: true, expiresAt: null, info: null });
    expect(file).toMatchObject({ category: null, description: null, sessionId: null, mime: 'text/plain' });
  });

  it('sizes beyond 2^32 round-trip as exact numbers', async () => {
    const owner = await newUser(ctx.catalog);
    const big = 2 ** 32 * 5 + 7;
    const file = await addFile(ctx.catalog, owner, 'huge.bin', { size: big });
    expect(file.size).toBe(big);
    expect((await ctx.catalog.get(owner, file.id))?.size).toBe(big);
    await addFile(ctx.catalog, owner, 'huge2.bin', { size: 2 ** 33 });
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: big + 2 ** 33, count: 2 });
  });

  it('rejects bad input with clear errors and changes nothing', async () => {
    const owner = await newUser(ctx.catalog);
    await expectFerryError(
      ctx.catalog.insertPending({ owner: randomUUID(), name: 'x', mime: 'text/plain', source: 'uploaded' }),
      'E_INVALID_INPUT',
    );
    await expectFerryError(
      ctx.catalog.insertPending({ owner, name: '', mime: 'text/plain', source: 'uploaded' }),
      'E_INVALID_INPUT',
    );
    const pending = await ctx.catalog.insertPending({
      owner,
      name: 'a',
      mime: 'text/plain',
      source: 'uploaded',
    });
    await expectFerryError(
      ctx.catalog.finalize(owner, pending.id, { size: -1, sha256: sha('a') }),
      'E_INVALID_INPUT',
    );
    await expectFerryError(
      ctx.catalog.finalize(owner, pending.id, { size: 1, sha256: 'nope' }),
      'E_INVALID_INPUT',
    );
    await expectFerryError(
      ctx.catalog.finalize(owner, randomUUID(), { size: 1, sha256: sha('a') }),
      'E_FILE_NOT_FOUND',
    );
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: 0, count: 0 });
    await ctx.catalog.finalize(owner, pending.id, { size: 1, sha256: sha('a') });
    // A second finalize of the same row finds no pending row.
    await expectFerryError(
      ctx.catalog.finalize(owner, pending.id, { size: 1, sha256: sha('a') }),
      'E_FILE_NOT_FOUND',
    );
  });

  it('delete removes one row (ready or pending) and returns its blob key once', async () => {
    const owner = await newUser(ctx.catalog);
    const file = await addFile(ctx.catalog, owner, 'gone.txt');
    const pending = await ctx.catalog.insertPending({
      owner,
      name: 'p.txt',
      mime: 'text/plain',
      source: 'uploaded',
    });
    expect(await ctx.catalog.delete(owner, file.id)).toEqual([file.blobKey]);
    expect(await ctx.catalog.delete(owner, file.id)).toEqual([]);
    expect(await ctx.catalog.get(owner, file.id)).toBeUndefined();
    expect(await ctx.catalog.delete(owner, pending.id)).toEqual([pending.blobKey]);
    await expectFerryError(
      ctx.catalog.finalize(owner, pending.id, { size: 1, sha256: sha('p') }),
      'E_FILE_NOT_FOUND',
    );
  });
}

function versioningTests(ctx: CatalogContext): void {
  it('the same name becomes a new version; latest wins; versions are newest first', async () => {
    const owner = await newUser(ctx.catalog);
    const v1 = await addFile(ctx.catalog, owner, 'report.csv', { size: 1 });
    const v2 = await addFile(ctx.catalog, owner, 'report.csv', { size: 2 });
    const other = await addFile(ctx.catalog, owner, 'other.csv');
    const v3 = await addFile(ctx.catalog, owner, 'report.csv', { size: 3 });
    expect([v1.version, v2.version, v3.version, other.version]).toEqual([1, 2, 3, 1]);
    expect(await ctx.catalog.latestByName(owner, 'report.csv')).toEqual(v3);
    expect((await ctx.catalog.versions(owner, 'report.csv')).map((f) => f.id)).toEqual([v3.id, v2.id, v1.id]);
    expect(await ctx.catalog.versions(owner, 'missing.csv')).toEqual([]);

    expect(await ctx.catalog.delete(owner, v3.id)).toEqual([v3.blobKey]);
    expect(await ctx.catalog.latestByName(owner, 'report.csv')).toEqual(v2);
    const keys = await ctx.catalog.deleteAllVersions(owner, 'report.csv');
    expect(keys.sort()).toEqual([v1.blobKey, v2.blobKey].sort());
    expect(await ctx.catalog.latestByName(owner, 'report.csv')).toBeUndefined();
    expect(await ctx.catalog.get(owner, other.id)).toEqual(other);
    expect(await ctx.catalog.deleteAllVersions(owner, 'report.csv')).toEqual([]);
  });

  it('20 concurrent finalizes of one name get versions 1..20, no gaps, no duplicates', async () => {
    const owner = await newUser(ctx.catalog);
    // Several instances (separate connections) as well as parallel calls on one.
    const catalogs = [ctx.catalog, await ctx.open(), await ctx.open(), await ctx.open()];
    const pendings = await Promise.all(
      Array.from({ length: 20 }, () =>
        ctx.catalog.insertPending({ owner, name: 'race.txt', mime: 'text/plain', source: 'generated' }),
      ),
    );
    const files = await Promise.all(
      pendings.map((p, i) =>
        (catalogs[i % catalogs.length] as Catalog).finalize(owner, p.id, { size: i, sha256: sha(String(i)) }),
      ),
    );
    expect(files.map((f) => f.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const versions = await ctx.catalog.versions(owner, 'race.txt');
    expect(versions.map((f) => f.version)).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
  });

  const pendingOf = (owner: string, name: string, row: Partial<NewPendingFile> = {}) =>
    ctx.catalog.insertPending({ mime: 'text/plain', source: 'uploaded', ...row, owner, name });

  it('finalizeUnlessIdentical: the same bytes as the latest version return it; other bytes add a version', async () => {
    const owner = await newUser(ctx.catalog);
    const v1 = await addFile(ctx.catalog, owner, 'same.txt', { size: 5, sha256: sha('one') });
    const again = await pendingOf(owner, 'same.txt');
    const reused = await ctx.catalog.finalizeUnlessIdentical(owner, again.id, {
      size: 5,
      sha256: sha('one'),
    });
    expect(reused).toEqual({ file: v1, reused: true });
    // The pending row is the caller's to delete (with its blob): still there, still invisible.
    expect(await ctx.catalog.delete(owner, again.id)).toEqual([again.blobKey]);

    const changed = await pendingOf(owner, 'same.txt');
    const v2 = await ctx.catalog.finalizeUnlessIdentical(owner, changed.id, { size: 5, sha256: sha('two') });
    expect(v2).toMatchObject({ reused: false, file: { id: changed.id, version: 2, sha256: sha('two') } });
    // Only the latest version counts: going back to the first bytes is a change.
    const back = await pendingOf(owner, 'same.txt');
    const v3 = await ctx.catalog.finalizeUnlessIdentical(owner, back.id, { size: 5, sha256: sha('one') });
    expect(v3).toMatchObject({ reused: false, file: { id: back.id, version: 3 } });
    // Another name with the same bytes is another file.
    const elsewhere = await pendingOf(owner, 'other.txt');
    const first = await ctx.catalog.finalizeUnlessIdentical(owner, elsewhere.id, {
      size: 5,
      sha256: sha('one'),
    });
    expect(first).toMatchObject({ reused: false, file: { version: 1 } });
    expect((await ctx.catalog.versions(owner, 'same.txt')).map((f) => f.version)).toEqual([3, 2, 1]);
  });

  it('finalizeUnlessIdentical keeps the new version when the latest one would not live as long', async () => {
    const owner = await newUser(ctx.catalog);
    const bytes = { size: 3, sha256: sha('abc') };
    const finalized = async (name: string, row: Partial<NewPendingFile>) =>
      ctx.catalog.finalizeUnlessIdentical(owner, (await pendingOf(owner, name, row)).id, bytes);

    // A session-only version: reused by the same session only, never for a kept upload.
    await addFile(ctx.catalog, owner, 'temp.txt', { ...bytes, persist: false, sessionId: 's1' });
    expect((await finalized('temp.txt', { persist: false, sessionId: 's1' })).reused).toBe(true);
    expect((await finalized('temp.txt', { persist: false, sessionId: 's2' })).reused).toBe(false);
    expect((await finalized('temp.txt', { persist: true })).reused).toBe(false);
    // A kept version stands for a session-only upload of the same bytes.
    expect((await finalized('temp.txt', { persist: false, sessionId: 's3' })).reused).toBe(true);

    // Expiry: an expiring version never stands for one that does not expire, or expires later.
    const soon = new Date('2030-01-01T00:00:00Z');
    await addFile(ctx.catalog, owner, 'expiring.txt', { ...bytes, expiresAt: soon });
    expect((await finalized('expiring.txt', { expiresAt: new Date('2031-01-01T00:00:00Z') })).reused).toBe(
      false,
    );
    await addFile(ctx.catalog, owner, 'expiring2.txt', { ...bytes, expiresAt: soon });
    expect((await finalized('expiring2.txt', { expiresAt: null })).reused).toBe(false);
    await addFile(ctx.catalog, owner, 'expiring3.txt', { ...bytes, expiresAt: soon });
    expect((await finalized('expiring3.txt', { expiresAt: new Date('2029-01-01T00:00:00Z') })).reused).toBe(
      true,
    );

    // A tool's output is not an upload of it.
    await addFile(ctx.catalog, owner, 'made.txt', { ...bytes, source: 'generated' });
    expect((await finalized('made.txt', { source: 'uploaded' })).reused).toBe(false);
  });

  it('identical uploads racing on several connections add one version, not several', async () => {
    const owner = await newUser(ctx.catalog);
    const catalogs = [ctx.catalog, await ctx.open(), await ctx.open(), await ctx.open()];
    await addFile(ctx.catalog, owner, 'race.bin', { size: 1, sha256: sha('old') });
    const pendings = await Promise.all(Array.from({ length: 12 }, () => pendingOf(owner, 'race.bin')));
    const results = await Promise.all(
      pendings.map((p, i) =>
        (catalogs[i % catalogs.length] as Catalog).finalizeUnlessIdentical(owner, p.id, {
          size: 1,
          sha256: sha('new'),
        }),
      ),
    );
    const added = results.filter((r) => !r.reused);
    expect(added).toHaveLength(1);
    expect(new Set(results.map((r) => r.file.id))).toEqual(new Set([added[0]?.file.id]));
    expect((await ctx.catalog.versions(owner, 'race.bin')).map((f) => f.version)).toEqual([2, 1]);
  });
}
