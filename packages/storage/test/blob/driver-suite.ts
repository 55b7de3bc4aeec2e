// The contract every blob driver keeps (src/blob/driver.ts), as one suite run against each
// driver, like unstorage's `testDriver`. A driver's own test file calls `describeBlobDriver` and
// adds what only that driver has. Put atomicity, failing and aborted puts live in
// driver-suite-atomicity.ts; this file has bytes, ranges, stat, delete, keys and list.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobDriver } from '../../src/blob/driver.js';
import { isBlobError } from '../../src/blob/errors.js';
import {
  pseudoRandomBytes,
  pseudoRandomChunks,
  readAll,
  sha256,
  sha256OfStream,
  streamOf,
  streamOfBuffer,
} from '../support/streams.js';
import { describeAtomicity } from './driver-suite-atomicity.js';

const MIB = 1024 * 1024;

export interface BlobDriverFixture {
  driver: BlobDriver;
  /** Removes everything the fixture created (directories, clients). */
  cleanup(): Promise<void>;
}

/** Called before every test: each test gets an empty store. */
export type MakeBlobDriver = () => Promise<BlobDriverFixture>;

export interface BlobSuiteContext {
  /** The current test's driver. */
  readonly driver: BlobDriver;
}

export interface BlobSuiteExtras {
  /**
   * Whether a read opened before an overwrite keeps streaming the old bytes. The driver cannot
   * add this on top of a backend that rewrites objects in place, so a backend without it says
   * why, and the test is reported as skipped with that reason in its name (never silently).
   * @default true
   */
  snapshotReads?: true | { unsupported: string };
  /** More tests inside the same `describe`, with the same per-test driver. */
  additionalTests?: (ctx: BlobSuiteContext) => void;
}

/** Keys a FileStore never produces; every driver refuses them on every method. */
export const INVALID_KEYS: readonly unknown[] = [
  '',
  '/abs',
  '/etc/passwd',
  '../escape',
  'users/../../escape',
  'a/../b',
  '..',
  '.',
  'a/./b',
  'a//b',
  'a/',
  '.tmp/x',
  'users/.hidden',
  'a\\b',
  '..\\..\\x',
  'a b',
  'a\u0000b',
  'a\nb',
  'f%2e%2e',
  'ü',
  `${'x'.repeat(256)}`,
  `${'abc/'.repeat(256)}x`,
  123,
  null,
  undefined,
];

export function describeBlobDriver(name: string, makeDriver: MakeBlobDriver, extras: BlobSuiteExtras = {}) {
  describe(`blob driver contract: ${name}`, () => {
    let fixture: BlobDriverFixture | undefined;
    const ctx: BlobSuiteContext = {
      get driver() {
        if (!fixture) throw new Error('no driver: used outside a test');
        return fixture.driver;
      },
    };

    beforeEach(async () => {
      fixture = await makeDriver();
    });
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });

    it('put then get returns the exact bytes, and put reports the size', async () => {
      const bytes = pseudoRandomBytes(300_000, 11);
      await expect(ctx.driver.put('users/u1/f1', streamOfBuffer(bytes))).resolves.toEqual({
        size: bytes.length,
      });
      const back = await sha256OfStream(await ctx.driver.get('users/u1/f1'));
      expect(back).toEqual({ sha256: sha256(bytes), size: bytes.length });
      expect(await ctx.driver.stat('users/u1/f1')).toEqual({ size: bytes.length });
    });

    it('stores an empty blob: size 0, empty get, empty ranges from 0', async () => {
      await expect(ctx.driver.put('users/u1/empty', streamOf([]))).resolves.toEqual({ size: 0 });
      expect(await ctx.driver.stat('users/u1/empty')).toEqual({ size: 0 });
      expect((await readAll(await ctx.driver.get('users/u1/empty'))).length).toBe(0);
      expect((await readAll(await ctx.driver.get('users/u1/empty', { start: 0 }))).length).toBe(0);
      expect((await readAll(await ctx.driver.get('users/u1/empty', { start: 0, end: 9 }))).length).toBe(0);
    });

    it('streams a multi-MiB blob in and out with the same sha256', async () => {
      const size = 12 * MIB + 12_345;
      const input = streamOf(pseudoRandomChunks(size, { seed: 12 }));
      const expected = await sha256OfStream(pseudoRandomChunks(size, { seed: 12 }));
      await expect(
        ctx.driver.put('users/u1/big', input, { contentType: 'application/octet-stream' }),
      ).resolves.toEqual({ size });
      expect(await sha256OfStream(await ctx.driver.get('users/u1/big'))).toEqual(expected);
      expect(await ctx.driver.stat('users/u1/big')).toEqual({ size });
    });

    describe('ranges', () => {
      const bytes = pseudoRandomBytes(200_000, 13);
      const key = 'users/u1/ranged';
      // Compared as hashes: deep equality over 200,000 bytes costs a second per assertion.
      const read = async (start: number, end?: number) =>
        sha256(await readAll(await ctx.driver.get(key, end === undefined ? { start } : { start, end })));
      const slice = (start: number, end?: number) => sha256(bytes.subarray(start, end));

      beforeEach(async () => {
        await ctx.driver.put(key, streamOfBuffer(bytes));
      });

      it('returns the first byte, the last byte, a middle span and an open-ended tail', async () => {
        expect(await read(0, 0)).toBe(slice(0, 1));
        expect(await read(bytes.length - 1, bytes.length - 1)).toBe(slice(bytes.length - 1));
        expect(await read(1000, 70_000)).toBe(slice(1000, 70_001));
        expect(await read(150_000)).toBe(slice(150_000));
        expect(await read(0)).toBe(sha256(bytes));
      });

      it('clamps an end past the last byte, as HTTP ranges do', async () => {
        expect(await read(bytes.length - 5, bytes.length + 100)).toBe(slice(bytes.length - 5));
      });

      it('rejects negative, inverted, fractional and past-the-end ranges with ERANGE', async () => {
        for (const range of [
          { start: -1 },
          { start: -1, end: 5 },
          { start: 10, end: 9 },
          { start: 1.5 },
          { start: 0, end: 2.5 },
          { start: Number.NaN },
          { start: bytes.length },
          { start: bytes.length + 10, end: bytes.length + 20 },
        ]) {
          const error = await ctx.driver.get(key, range).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(isBlobError(error, 'ERANGE'), `range ${JSON.stringify(range)}`).toBe(true);
          expect(error).toBeInstanceOf(RangeError);
        }
      });

      it('reports a missing key as ENOENT even with a valid range', async () => {
        await expect(ctx.driver.get('users/u1/none', { start: 0, end: 0 })).rejects.toMatchObject({
          code: 'ENOENT',
        });
      });
    });

    it('stat: null when missing, the size when present, null again after delete', async () => {
      expect(await ctx.driver.stat('users/u1/s')).toBeNull();
      await ctx.driver.put('users/u1/s', streamOfBuffer(Buffer.from('four')));
      expect(await ctx.driver.stat('users/u1/s')).toEqual({ size: 4 });
      await ctx.driver.delete('users/u1/s');
      expect(await ctx.driver.stat('users/u1/s')).toBeNull();
    });

    it('get of a missing key rejects with code ENOENT', async () => {
      const error = await ctx.driver.get('users/u1/missing').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isBlobError(error, 'ENOENT')).toBe(true);
      expect((error as Error).message).toContain('users/u1/missing');
    });

    it('delete is idempotent: missing key, then twice after a put', async () => {
      await expect(ctx.driver.delete('users/u1/never')).resolves.toBeUndefined();
      await ctx.driver.put('users/u1/d', streamOfBuffer(Buffer.from('x')));
      await ctx.driver.delete('users/u1/d');
      await expect(ctx.driver.delete('users/u1/d')).resolves.toBeUndefined();
      await expect(ctx.driver.get('users/u1/d')).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('refuses traversal and malformed keys on every method with EINVAL, writing nothing', async () => {
      for (const key of INVALID_KEYS) {
        const bad = key as string;
        const label = `key ${JSON.stringify(key)}`;
        const calls: Array<() => Promise<unknown>> = [
          () => ctx.driver.put(bad, streamOfBuffer(Buffer.from('evil'))),
          () => ctx.driver.get(bad),
          () => ctx.driver.stat(bad),
          () => ctx.driver.delete(bad),
        ];
        for (const call of calls) {
          const error = await Promise.resolve()
            .then(call)
            .then(
              () => undefined,
              (caught: unknown) => caught,
            );
          expect(isBlobError(error, 'EINVAL'), label).toBe(true);
        }
      }
      expect(await keysOf(ctx.driver, '')).toEqual([]);
    });

    it('accepts the keys a FileStore makes', async () => {
      // 200, not 255: s3rver appends `._S3rver_object` to the name on disk and dies on ENAMETOOLONG.
      for (const key of ['users/3f2a-b9/01HZX7.v2', 'a', 'A.B-c_d/e..f', `${'k'.repeat(200)}`]) {
        await ctx.driver.put(key, streamOfBuffer(Buffer.from(key)));
        expect(await readAll(await ctx.driver.get(key))).toEqual(Buffer.from(key));
      }
    });

    it('lists keys under a prefix, with S3 string-prefix semantics', async () => {
      for (const key of ['users/a/1', 'users/a/2', 'users/ab/1', 'users/b/1', 'other/x']) {
        await ctx.driver.put(key, streamOfBuffer(Buffer.from(key)));
      }
      expect(await keysOf(ctx.driver, 'users/a/')).toEqual(['users/a/1', 'users/a/2']);
      expect(await keysOf(ctx.driver, 'users/a')).toEqual(['users/a/1', 'users/a/2', 'users/ab/1']);
      expect(await keysOf(ctx.driver, 'users/')).toEqual([
        'users/a/1',
        'users/a/2',
        'users/ab/1',
        'users/b/1',
      ]);
      expect(await keysOf(ctx.driver, '')).toEqual([
        'other/x',
        'users/a/1',
        'users/a/2',
        'users/ab/1',
        'users/b/1',
      ]);
      expect(await keysOf(ctx.driver, 'nothing/')).toEqual([]);
      await ctx.driver.delete('users/a/1');
      expect(await keysOf(ctx.driver, 'users/a/')).toEqual(['users/a/2']);
    });

    it('refuses a traversal prefix in list', async () => {
      for (const prefix of ['../', '/', 'users/../', '.tmp/']) {
        const error = await keysOf(ctx.driver, prefix).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isBlobError(error, 'EINVAL'), `prefix ${prefix}`).toBe(true);
      }
    });

    describeAtomicity(ctx, extras.snapshotReads ?? true);
    extras.additionalTests?.(ctx);
  });
}

/** All keys under `prefix`, sorted (drivers promise no order). Rejects whatever `list` throws. */
export async function keysOf(driver: BlobDriver, prefix: string): Promise<string[]> {
  if (!driver.list) throw new Error(`driver ${driver.name} has no list()`);
  const keys: string[] = [];
  for await (const key of driver.list(prefix)) keys.push(key);
  return keys.sort();
}
