import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/types.js';
import { addFile, type CatalogContext, expectFerryError, newUser, sha } from './catalog-fixtures.js';

const MIB = 1024 * 1024;

const pendingOf = (catalog: Catalog, owner: string, name = 'upload.bin') =>
  catalog.insertPending({ owner, name, mime: 'application/octet-stream', source: 'uploaded' });

// Quota reservations: a pending row holds the bytes its upload has received; the check and the
// grant are one atomic step per owner, whatever the number of connections or instances.
export function quotaTests(ctx: CatalogContext): void {
  it('reserve grants what fits, counting stored files and other reservations', async () => {
    const owner = await newUser(ctx.catalog);
    await addFile(ctx.catalog, owner, 'stored.bin', { size: 4 * MIB });
    const statsBefore = await ctx.catalog.stats();
    const [a, b] = (await Promise.all([pendingOf(ctx.catalog, owner), pendingOf(ctx.catalog, owner)])).sort(
      (x, y) => (x.id < y.id ? -1 : 1),
    ) as [Awaited<ReturnType<typeof pendingOf>>, Awaited<ReturnType<typeof pendingOf>>];
    const quotaBytes = 10 * MIB;
    expect(await ctx.catalog.reserve(owner, a.id, { bytes: 3 * MIB, quotaBytes })).toEqual({ ok: true });
    expect(await ctx.catalog.reserve(owner, b.id, { bytes: 3 * MIB, quotaBytes })).toEqual({ ok: true });
    // Growing a reservation counts the others, not the row's own earlier reservation.
    expect(await ctx.catalog.reserve(owner, b.id, { bytes: 3 * MIB + 1, quotaBytes })).toEqual({
      ok: false,
      storedBytes: 4 * MIB,
      reservedByOthers: 3 * MIB,
      reservedBefore: 3 * MIB,
    });
    expect(await ctx.catalog.reserve(owner, a.id, { bytes: 3 * MIB + 1, quotaBytes })).toEqual({
      ok: false,
      storedBytes: 4 * MIB,
      reservedByOthers: 3 * MIB,
      reservedBefore: 0,
    });
    // A refused row keeps what it had.
    expect(await ctx.catalog.reserve(owner, a.id, { bytes: 3 * MIB, quotaBytes })).toEqual({ ok: true });
    // Reservations are not usage: usage and the admin totals count what is stored.
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: 4 * MIB, count: 1 });
    expect(await ctx.catalog.stats()).toEqual({ ...statsBefore, pending: statsBefore.pending + 2 });

    // Finalize turns a reservation into the real size; delete gives it back.
    const file = await ctx.catalog.finalize(owner, a.id, { size: 2 * MIB, sha256: sha('a') });
    expect(file.size).toBe(2 * MIB);
    expect(await ctx.catalog.usage(owner)).toEqual({ bytes: 6 * MIB, count: 2 });
    expect(await ctx.catalog.reserve(owner, b.id, { bytes: 4 * MIB, quotaBytes })).toEqual({ ok: true });
    await ctx.catalog.delete(owner, b.id);
    const c = await pendingOf(ctx.catalog, owner);
    expect(await ctx.catalog.reserve(owner, c.id, { bytes: 4 * MIB, quotaBytes })).toEqual({ ok: true });
  });

  it('reserve refuses a row that is not pending (finalized, deleted, another owner’s) and bad sizes', async () => {
    const owner = await newUser(ctx.catalog);
    const other = await newUser(ctx.catalog);
    const ready = await addFile(ctx.catalog, owner, 'ready.bin');
    const pending = await pendingOf(ctx.catalog, owner);
    const request = { bytes: 1, quotaBytes: MIB };
    await expectFerryError(ctx.catalog.reserve(owner, ready.id, request), 'E_FILE_NOT_FOUND');
    await expectFerryError(ctx.catalog.reserve(other, pending.id, request), 'E_FILE_NOT_FOUND');
    await expectFerryError(ctx.catalog.reserve(owner, randomUUID(), request), 'E_FILE_NOT_FOUND');
    await expectFerryError(
      ctx.catalog.reserve(owner, pending.id, { bytes: -1, quotaBytes: MIB }),
      'E_INVALID_INPUT',
    );
    await expectFerryError(
      ctx.catalog.reserve(owner, pending.id, { bytes: 1, quotaBytes: 0.5 }),
      'E_INVALID_INPUT',
    );
    expect((await ctx.catalog.get(owner, ready.id))?.size).toBe(10);
  });

  it('20 concurrent 4 MiB reservations under a 20 MiB quota: exactly 5 granted, on several connections', async () => {
    const owner = await newUser(ctx.catalog);
    const catalogs = [ctx.catalog, await ctx.open(), await ctx.open(), await ctx.open()];
    const pendings = await Promise.all(Array.from({ length: 20 }, () => pendingOf(ctx.catalog, owner)));
    const results = await Promise.all(
      pendings.map((p, i) =>
        (catalogs[i % catalogs.length] as Catalog).reserve(owner, p.id, {
          bytes: 4 * MIB,
          quotaBytes: 20 * MIB,
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    const granted = pendings.filter((_, i) => results[i]?.ok).map((p) => p.id);
    results.forEach((r, i) => {
      const id = pendings[i]?.id as string;
      if (r.ok) return;
      expect(r).toEqual({
        ok: false,
        storedBytes: 0,
        reservedByOthers: 20 * MIB,
        // The order is the id order, the same in every catalog.
        reservedBefore: granted.filter((other) => other < id).length * 4 * MIB,
      });
    });
  });

  it('a reservation is an upload’s sign of life; a stale one ends with its pending row', async () => {
    const owner = await newUser(ctx.catalog);
    const pending = await pendingOf(ctx.catalog, owner);
    const before = Date.now();
    await ctx.catalog.reserve(owner, pending.id, { bytes: MIB, quotaBytes: MIB });
    const stale = (await ctx.catalog.stalePending(new Date(Date.now() + 60_000), 100_000)).find(
      (p) => p.id === pending.id,
    );
    expect(stale?.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect((await ctx.catalog.stalePending(new Date(before - 1), 100_000)).map((p) => p.id)).not.toContain(
      pending.id,
    );
    const next = await pendingOf(ctx.catalog, owner);
    expect(await ctx.catalog.reserve(owner, next.id, { bytes: 1, quotaBytes: MIB })).toMatchObject({
      ok: false,
    });
    // What the sweeper does with a stale row gives its space back.
    await ctx.catalog.delete(owner, pending.id);
    expect(await ctx.catalog.reserve(owner, next.id, { bytes: MIB, quotaBytes: MIB })).toEqual({ ok: true });
  });
}
