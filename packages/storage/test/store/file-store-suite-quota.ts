// The per-user quota under concurrency, on every combination: each upload reserves space in the
// catalog as its bytes arrive, so writers running side by side can never store more than the
// quota together; a failed upload gives its reservation back, a crashed one loses it to the sweep.
import { FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlledStream, failingStream, pseudoRandomChunks, streamOf } from '../support/streams.js';
import { expectFerryError } from './file-store-suite.js';
import type { Harness } from './harness.js';

const MIB = 1024 * 1024;

/** A streamed body of `size` pseudo-random bytes in 64 KiB chunks, never held in memory whole. */
function body(size: number, seed: number) {
  return streamOf(pseudoRandomChunks(size, { seed, chunkSize: 64 * 1024 }));
}

/** What the catalog and the blob driver hold for one owner, to compare with the quota. */
async function holdings(h: Harness, owner: string) {
  const { items } = await h.files.list(owner, { allVersions: true, limit: 1000 });
  return {
    usage: await h.files.usage(owner),
    sizes: items.reduce((sum, file) => sum + file.size, 0),
    count: items.length,
    rowKeys: items.map((file) => file.blobKey).sort(),
    blobKeys: (await h.blobKeys()).filter((key) => key.startsWith(`users/${owner}/`)),
  };
}

/**
 * @param make a harness whose max_file_size_mb is at least 8, so only the quota refuses 4 MiB.
 */
export function describeFileStoreQuota(label: string, make: () => Promise<Harness>) {
  describe(`FileStore quota under concurrency on ${label}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await make();
    });
    afterAll(async () => h?.close());

    const userWithQuota = async (username: string, quotaBytes: number) => {
      const owner = await h.files.ensureUser(username);
      await h.catalog.updateUser(owner, { quotaBytes });
      return owner;
    };

    it('20 parallel 4 MiB puts under a 20 MiB quota store at most 20 MiB; the rest fail and leave nothing', async () => {
      const owner = await userWithQuota('parallel', 20 * MIB);
      // Half of them are versions of one name: every version counts toward the quota.
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          h.files.put(owner, i % 2 === 0 ? 'same.bin' : `part-${i}.bin`, body(4 * MIB, 100 + i)),
        ),
      );
      const stored = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));

      expect(stored.length).toBeLessThanOrEqual(5);
      // They do not all give up: the ones that come first wait for the others' space.
      expect(stored.length).toBeGreaterThanOrEqual(1);
      expect(stored.length + errors.length).toBe(20);
      for (const error of errors) {
        expect(error).toBeInstanceOf(FerryError);
        expect((error as FerryError).code).toBe('E_QUOTA_EXCEEDED');
        expect((error as FerryError).message).toMatch(/quota of 20 MiB \(20,971,520 bytes\)/);
        expect((error as FerryError).details).toMatchObject({ quota_bytes: 20 * MIB });
      }
      const held = await holdings(h, owner);
      expect(held.count).toBe(stored.length);
      expect(held.usage).toEqual({ bytes: held.sizes, count: stored.length, quotaBytes: 20 * MIB });
      expect(held.usage.bytes).toBe(stored.length * 4 * MIB);
      expect(held.usage.bytes).toBeLessThanOrEqual(20 * MIB);
      // The blobs of the refused uploads are gone; only the stored files' remain.
      expect(held.blobKeys).toEqual(held.rowKeys);
      expect(held.blobKeys).toEqual(stored.map((file) => file.blobKey).sort());
      expect((await h.files.stats()).pending).toBe(0);
    });

    it('parallel uploads that fit the quota together are all stored, to the last byte', async () => {
      const owner = await userWithQuota('fits', 10 * MIB);
      // 1.25 MiB each, not a multiple of anything the store reserves by.
      const files = await Promise.all(
        Array.from({ length: 8 }, (_, i) => h.files.put(owner, `fit-${i}.bin`, body(1.25 * MIB, 200 + i))),
      );
      expect(files).toHaveLength(8);
      expect((await holdings(h, owner)).usage).toEqual({ bytes: 10 * MIB, count: 8, quotaBytes: 10 * MIB });
      await expectFerryError(h.files.put(owner, 'one-more.bin', body(1, 300)), 'E_QUOTA_EXCEEDED');
      expect(await h.files.put(owner, 'empty.bin', body(0, 301))).toMatchObject({ size: 0 });
    });

    it('a stream that fails midway gives its reservation back: a later upload that fits succeeds', async () => {
      const owner = await userWithQuota('broken-stream', 4 * MIB);
      const chunks = [...(await collect(pseudoRandomChunks(3 * MIB, { seed: 7, chunkSize: 256 * 1024 })))];
      await expect(
        h.files.put(owner, 'broken.bin', failingStream(chunks, new Error('connection reset'))),
      ).rejects.toThrow(/connection reset/);
      // Had the 3 MiB (or more) reserved by the broken upload leaked, 3.5 MiB would not fit.
      const file = await h.files.put(owner, 'fits.bin', body(3.5 * MIB, 8));
      expect(file.size).toBe(3.5 * MIB);
      expect((await holdings(h, owner)).usage).toMatchObject({ bytes: 3.5 * MIB, count: 1 });
    });

    it('an aborted upload and a refused one give their reservations back', async () => {
      const owner = await userWithQuota('aborted', 4 * MIB);
      const controller = new AbortController();
      const input = createControlledStream();
      const put = h.files.put(owner, 'aborted.bin', input.stream, { signal: controller.signal });
      for (let i = 0; i < 12; i++) {
        await input.pulled();
        input.push(Buffer.alloc(256 * 1024, i));
      }
      await input.pulled();
      controller.abort();
      await expect(put).rejects.toThrow();
      await expectFerryError(
        h.files.put(owner, 'too-big.bin', body(5 * MIB, 9)),
        'E_QUOTA_EXCEEDED',
        /quota/,
      );
      const file = await h.files.put(owner, 'exact.bin', body(4 * MIB, 10));
      expect(file.size).toBe(4 * MIB);
      const held = await holdings(h, owner);
      expect(held.usage).toMatchObject({ bytes: 4 * MIB, count: 1 });
      expect(held.blobKeys).toEqual([file.blobKey]);
    });

    it('usage follows deletes: freed space can be used again, never more', async () => {
      const owner = await userWithQuota('deletes', 8 * MIB);
      const a = await h.files.put(owner, 'a.bin', body(3 * MIB, 11));
      await h.files.put(owner, 'b.bin', body(3 * MIB, 12));
      const b2 = await h.files.put(owner, 'b.bin', body(2 * MIB, 13));
      expect((await h.files.usage(owner)).bytes).toBe(8 * MIB);
      await expectFerryError(h.files.put(owner, 'c.bin', body(1, 14)), 'E_QUOTA_EXCEEDED');

      await h.files.delete(owner, a.id);
      expect(await h.files.usage(owner)).toMatchObject({ bytes: 5 * MIB, count: 2 });
      const results = await Promise.allSettled(
        [1, 2, 3].map((i) => h.files.put(owner, `d${i}.bin`, body(2 * MIB, 20 + i))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await holdings(h, owner)).usage).toMatchObject({ bytes: 7 * MIB, count: 3 });

      expect(await h.files.deleteAllVersions(owner, 'b.bin')).toBe(2);
      let held = await holdings(h, owner);
      expect(held.usage).toMatchObject({ bytes: 2 * MIB, count: 1 });
      expect(held.blobKeys).not.toContain(b2.blobKey);
      await h.files.put(owner, 'e.bin', body(6 * MIB, 30));
      held = await holdings(h, owner);
      expect(held.usage).toMatchObject({ bytes: 8 * MIB, count: 2 });
      expect(held.usage.bytes).toBe(held.sizes);
      expect(held.blobKeys).toEqual(held.rowKeys);
    });

    it('tool outputs (generated, deferred, session-only) count and are limited the same way', async () => {
      const owner = await userWithQuota('tools', 10 * MIB);
      const put = (i: number) =>
        h.files.put(owner, `out-${i}.csv`, body(3 * MIB, 40 + i), {
          source: i % 3 === 0 ? 'deferred' : 'generated',
          sessionId: 'tool-session',
          persist: i % 2 === 0,
        });
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => put(i)));
      const stored = results.filter((r) => r.status === 'fulfilled');
      expect(stored.length).toBeLessThanOrEqual(3);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as FerryError).code).toBe('E_QUOTA_EXCEEDED');
      }
      const held = await holdings(h, owner);
      expect(held.usage.bytes).toBe(stored.length * 3 * MIB);
      expect(held.blobKeys).toEqual(held.rowKeys);
      // Ending the session frees what its session-only files held.
      const sessionOnly = (await h.files.list(owner)).items.filter((f) => !f.persist).length;
      expect(await h.files.endSession('tool-session')).toBe(sessionOnly);
      expect((await h.files.usage(owner)).bytes).toBe((stored.length - sessionOnly) * 3 * MIB);
    });

    it('a crashed upload’s reservation holds until the sweep removes it, then the space is free', async () => {
      const owner = await userWithQuota('crashed', 4 * MIB);
      // What a writer killed mid-upload leaves: a pending row holding a reservation.
      const pending = await h.catalog.insertPending({
        owner,
        name: 'crash.bin',
        mime: 'application/octet-stream',
        source: 'uploaded',
      });
      expect(await h.catalog.reserve(owner, pending.id, { bytes: 3 * MIB, quotaBytes: 4 * MIB })).toEqual({
        ok: true,
      });
      expect((await h.files.usage(owner)).bytes).toBe(0);
      const refused = await expectFerryError(
        h.files.put(owner, 'next.bin', body(2 * MIB, 50)),
        'E_QUOTA_EXCEEDED',
      );
      expect(refused.message).toMatch(/4,194,304 bytes.*3,145,728 bytes\) reserved/);
      expect(refused.details).toMatchObject({ quota_bytes: 4 * MIB, used_bytes: 0, reserved_bytes: 3 * MIB });

      // Sweep as of now (not yet stale, so a live upload is left alone), then as of two hours
      // later (past the one-hour grace).
      expect((await h.files.sweep()).pending).toBe(0);
      h.clock.advanceHours(2);
      expect((await h.files.sweep()).pending).toBe(1);
      const file = await h.files.put(owner, 'next.bin', body(4 * MIB, 51));
      expect(file.size).toBe(4 * MIB);
    });

    it('without a quota nothing is reserved and nothing is refused', async () => {
      const owner = await h.files.ensureUser('unlimited');
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => h.files.put(owner, `free-${i}.bin`, body(4 * MIB, 60 + i))),
      );
      expect(results).toHaveLength(6);
      expect(await h.files.usage(owner)).toEqual({ bytes: 24 * MIB, count: 6, quotaBytes: null });
    });
  });
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}
