// The FileStore contract, run against every blob driver × catalog combination
// (file-store.test.ts). Owner isolation and retention are in file-store-suite-owners.ts.
import { FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/store/file-store.js';
import {
  createControlledStream,
  failingStream,
  pseudoRandomBytes,
  readAll,
  sha256,
  streamOfBuffer,
} from '../support/streams.js';
import type { Harness } from './harness.js';

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNkYGBgAAAABQABWaDDsAAAAABJRU5ErkJggg==',
  'base64',
);

export async function expectFerryError(promise: Promise<unknown>, code: string, message?: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(FerryError);
  expect((error as FerryError).code).toBe(code);
  if (message) expect((error as FerryError).message).toMatch(message);
  return error as FerryError;
}

export async function putBuffer(files: FileStore, owner: string, name: string, bytes: Buffer, mime?: string) {
  return files.put(owner, name, streamOfBuffer(bytes, 1000), mime ? { mime } : {});
}

/** What must not change after a refused operation. */
async function snapshot(h: Harness, owner: string) {
  return {
    list: (await h.files.list(owner, { allVersions: true })).items.map((f) => [f.name, f.version, f.sha256]),
    keys: await h.blobKeys(),
    stats: await h.files.stats(),
  };
}

export function describeFileStore(label: string, make: () => Promise<Harness>) {
  describe(`FileStore on ${label}`, () => {
    let h: Harness;
    let alice: string;
    beforeAll(async () => {
      h = await make();
      alice = await h.files.ensureUser('alice');
    });
    afterAll(async () => h?.close());

    it('stores and returns the exact bytes, with sha256 computed while streaming', async () => {
      const bytes = pseudoRandomBytes(900 * 1024 + 17, 3);
      const file = await putBuffer(h.files, alice, 'blob.bin', bytes);
      expect(file).toMatchObject({ name: 'blob.bin', version: 1, size: bytes.length, sha256: sha256(bytes) });
      expect(file.source).toBe('uploaded');
      const { stream } = await h.files.get(alice, { id: file.id });
      expect(sha256(await readAll(stream))).toBe(sha256(bytes));
      expect(await h.blobKeys()).toContain(file.blobKey);
      expect(file.blobKey).toBe(`users/${alice}/${file.id}`);
    });

    it('sniffs the type from the bytes when the claim is generic or wrong', async () => {
      expect((await putBuffer(h.files, alice, 'pixel', PNG_1x1, 'application/octet-stream')).mime).toBe(
        'image/png',
      );
      expect((await putBuffer(h.files, alice, 'pixel.jpg', PNG_1x1, 'image/jpeg')).mime).toBe('image/png');
      expect(
        (await putBuffer(h.files, alice, 'fake.png', Buffer.from('just text\n'), 'image/png')).mime,
      ).toBe('text/plain');
      expect((await putBuffer(h.files, alice, 'data.csv', Buffer.from('a,b\n1,2\n'), 'text/csv')).mime).toBe(
        'text/csv',
      );
      expect((await putBuffer(h.files, alice, 'notes.md', Buffer.from('# hi\n'))).mime).toBe('text/markdown');
    });

    it('records cheap info: rows and columns of a CSV, pixel size of an image', async () => {
      const csv = await putBuffer(
        h.files,
        alice,
        'sales.csv',
        Buffer.from('region,q1,q2\n"North, East",1,2\nSouth,3,4\n'),
      );
      expect(csv.info).toEqual({ rows: 2, columns: 3 });
      const png = await putBuffer(h.files, alice, 'dot.png', PNG_1x1);
      expect(png.info).toEqual({ width: 1, height: 1 });
    });

    it('keeps versions: the same name twice is a new version, never an overwrite', async () => {
      const v1 = await putBuffer(h.files, alice, 'report.csv', Buffer.from('v,1\n'));
      const v2 = await putBuffer(h.files, alice, 'report.csv', Buffer.from('v,2\n'));
      expect([v1.version, v2.version]).toEqual([1, 2]);
      expect((await h.files.resolve(alice, 'report.csv'))?.id).toBe(v2.id);
      expect((await h.files.versions(alice, 'report.csv')).map((f) => f.version)).toEqual([2, 1]);
      const old = await h.files.get(alice, { name: 'report.csv', version: 1 });
      expect((await readAll(old.stream)).toString()).toBe('v,1\n');
      const latest = await h.files.get(alice, { name: 'report.csv' });
      expect((await readAll(latest.stream)).toString()).toBe('v,2\n');
    });

    it('an upload of the bytes the latest version already holds returns that version and keeps no copy', async () => {
      const bytes = pseudoRandomBytes(300 * 1024 + 5, 11);
      const v1 = await putBuffer(h.files, alice, 'same.bin', bytes);
      expect(v1.unchanged).toBeUndefined();
      const before = await snapshot(h, alice);
      const usage = await h.files.usage(alice);

      const again = await putBuffer(h.files, alice, 'same.bin', bytes);
      expect(again).toEqual({ ...v1, unchanged: true });
      expect(await snapshot(h, alice)).toEqual(before);
      expect(await h.files.usage(alice)).toEqual(usage);

      // One byte different is a new version; tool outputs and an explicit opt-out always add one.
      const changed = Buffer.from(bytes);
      changed[0] = (changed[0] ?? 0) ^ 1;
      const v2 = await putBuffer(h.files, alice, 'same.bin', changed);
      expect(v2).toMatchObject({ version: 2, sha256: sha256(changed) });
      expect(v2.unchanged).toBeUndefined();
      const kept = await h.files.put(alice, 'same.bin', streamOfBuffer(changed, 1000), {
        reuseIdentical: false,
      });
      expect(kept.version).toBe(3);
      await putBuffer(h.files, alice, 'made.bin', bytes);
      const generated = await h.files.put(alice, 'made.bin', streamOfBuffer(bytes, 1000), {
        source: 'generated',
      });
      expect(generated.version).toBe(2);
      expect((await h.blobKeys()).length).toBe(before.keys.length + 4);
    });

    it('normalizes every incoming name and resolves tool arguments by either form', async () => {
      const file = await putBuffer(h.files, alice, '../../etc/passwd.txt', Buffer.from('x'));
      expect(file.name).toBe('passwd.txt');
      expect((await h.files.resolve(alice, '../../etc/passwd.txt'))?.id).toBe(file.id);
      const long = await putBuffer(h.files, alice, `${'a'.repeat(10_000)}.csv`, Buffer.from('a\n'));
      expect(Buffer.byteLength(long.name)).toBeLessThanOrEqual(255);
      expect(long.name.endsWith('.csv')).toBe(true);
    });

    it('stores a path-like name under its last usable segment, for puts and renames alike', async () => {
      const owner = await h.files.ensureUser('paths');
      // Seed 000 §5.2's own example, then a POSIX one: both are the name `file`.
      const first = await putBuffer(h.files, owner, '..\\..\\..\\windows\\system32\\file', Buffer.from('1'));
      expect(first).toMatchObject({ name: 'file', version: 1 });
      const second = await putBuffer(h.files, owner, 'a/file', Buffer.from('2'));
      expect(second).toMatchObject({ name: 'file', version: 2 });
      const other = await putBuffer(h.files, owner, 'other.txt', Buffer.from('3'));
      expect((await h.files.rename(owner, other.id, 'C:\\Users\\me\\renamed.txt')).name).toBe('renamed.txt');
      expect((await h.files.resolve(owner, 'x/y/renamed.txt'))?.id).toBe(other.id);
      expect((await h.files.list(owner)).items.map((f) => [f.name, f.version])).toEqual([
        ['file', 2],
        ['renamed.txt', 1],
      ]);
      // A name with nothing usable names no file, not the one stored as `file`.
      expect(await h.files.resolve(owner, '../..')).toBeUndefined();
      await expectFerryError(h.files.stat(owner, { name: '///' }), 'E_FILE_NOT_FOUND');
      expect(await h.files.versions(owner, '...')).toEqual([]);
      expect(await h.files.deleteAllVersions(owner, '../..')).toBe(0);
      expect((await h.files.versions(owner, 'file')).map((f) => f.id)).toEqual([second.id, first.id]);
    });

    it('refuses names with nothing usable in them, changing nothing', async () => {
      const before = await snapshot(h, alice);
      for (const name of ['../..', '////', '...', '', '  ', '\\\\..\\', '\u0000\u202e', '%2e%2e%2f']) {
        const error = await expectFerryError(
          putBuffer(h.files, alice, name, Buffer.from('x')),
          'E_INVALID_INPUT',
          /name/,
        );
        expect(error.details).toEqual({ field: 'name' });
      }
      const file = await putBuffer(h.files, alice, 'renamable.txt', Buffer.from('r'));
      for (const name of ['../..', '///']) {
        const error = await expectFerryError(h.files.rename(alice, file.id, name), 'E_INVALID_INPUT');
        expect(error.message).toBe(`File name ${JSON.stringify(name)} has no usable characters`);
        expect(error.details).toEqual({ field: 'name' });
      }
      await h.files.delete(alice, file.id);
      expect(await snapshot(h, alice)).toEqual(before);
    });

    it('stores an empty file', async () => {
      const file = await putBuffer(h.files, alice, 'empty.txt', Buffer.alloc(0));
      expect(file).toMatchObject({ size: 0, sha256: sha256(Buffer.alloc(0)) });
      expect((await readAll((await h.files.get(alice, { id: file.id })).stream)).length).toBe(0);
      await expectFerryError(
        h.files.get(alice, { id: file.id }, { range: { start: 0 } }),
        'E_RANGE_NOT_SATISFIABLE',
      );
    });

    it('serves byte ranges and refuses bad ones with a clear error', async () => {
      const bytes = pseudoRandomBytes(1000, 9);
      const file = await putBuffer(h.files, alice, 'ranged.bin', bytes);
      const read = async (start: number, end?: number) => {
        const content = await h.files.get(
          alice,
          { id: file.id },
          { range: end === undefined ? { start } : { start, end } },
        );
        return { range: content.range, bytes: await readAll(content.stream) };
      };
      expect(await read(0, 0)).toEqual({ range: { start: 0, end: 0 }, bytes: bytes.subarray(0, 1) });
      expect(await read(999)).toEqual({ range: { start: 999, end: 999 }, bytes: bytes.subarray(999) });
      expect(await read(100, 199)).toEqual({
        range: { start: 100, end: 199 },
        bytes: bytes.subarray(100, 200),
      });
      expect(await read(990, 5000)).toEqual({ range: { start: 990, end: 999 }, bytes: bytes.subarray(990) });
      const before = await snapshot(h, alice);
      for (const range of [
        { start: -1 },
        { start: 1000 },
        { start: 5, end: 4 },
        { start: 1.5 },
        { start: 2000, end: 3000 },
      ]) {
        await expectFerryError(h.files.get(alice, { id: file.id }, { range }), 'E_RANGE_NOT_SATISFIABLE');
      }
      expect(await snapshot(h, alice)).toEqual(before);
    });

    it('lists, filters, sorts and pages', async () => {
      const bob = await h.files.ensureUser('lister');
      await putBuffer(h.files, bob, 'b.txt', Buffer.from('bb'));
      await putBuffer(h.files, bob, 'a.txt', Buffer.from('a'));
      await putBuffer(h.files, bob, 'c.csv', Buffer.from('ccc'));
      const names = async (options: Parameters<FileStore['list']>[1]) =>
        (await h.files.list(bob, options)).items.map((f) => f.name);
      expect(await names({ sort: 'name' })).toEqual(['a.txt', 'b.txt', 'c.csv']);
      expect(await names({ sort: 'size', order: 'desc' })).toEqual(['c.csv', 'b.txt', 'a.txt']);
      expect(await names({ query: 'TXT' })).toEqual(['a.txt', 'b.txt']);
      expect(await names({ sort: 'name', limit: 1, offset: 1 })).toEqual(['b.txt']);
      expect((await h.files.list(bob, { limit: 1 })).total).toBe(3);
    });

    it('renames every version of a name and refuses a taken name', async () => {
      const owner = await h.files.ensureUser('renamer');
      await putBuffer(h.files, owner, 'draft.md', Buffer.from('1'));
      const v2 = await putBuffer(h.files, owner, 'draft.md', Buffer.from('2'));
      await putBuffer(h.files, owner, 'final.md', Buffer.from('f'));
      const renamed = await h.files.rename(owner, v2.id, '../final version.md');
      expect(renamed.name).toBe('final version.md');
      expect((await h.files.versions(owner, 'final version.md')).length).toBe(2);
      expect(await h.files.versions(owner, 'draft.md')).toEqual([]);
      await expectFerryError(h.files.rename(owner, v2.id, 'final.md'), 'E_INVALID_INPUT', /already exists/);
    });

    it('deletes a version and its blob; deleting all versions removes every blob', async () => {
      const owner = await h.files.ensureUser('deleter');
      const v1 = await putBuffer(h.files, owner, 'x.txt', Buffer.from('1'));
      const v2 = await putBuffer(h.files, owner, 'x.txt', Buffer.from('2'));
      await h.files.delete(owner, v2.id);
      expect(await h.blobKeys()).not.toContain(v2.blobKey);
      expect((await h.files.resolve(owner, 'x.txt'))?.id).toBe(v1.id);
      await expectFerryError(h.files.delete(owner, v2.id), 'E_FILE_NOT_FOUND');
      const v3 = await putBuffer(h.files, owner, 'x.txt', Buffer.from('3'));
      expect(await h.files.deleteAllVersions(owner, 'x.txt')).toBe(2);
      const keys = await h.blobKeys();
      expect(keys).not.toContain(v1.blobKey);
      expect(keys).not.toContain(v3.blobKey);
      expect(await h.files.resolve(owner, 'x.txt')).toBeUndefined();
    });

    it('an upload whose stream fails midway leaves nothing behind', async () => {
      const before = await snapshot(h, alice);
      const error = await h.files
        .put(
          alice,
          'broken.bin',
          failingStream([pseudoRandomBytes(200_000, 1)], new Error('connection reset')),
        )
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(error?.message).toMatch(/connection reset/);
      expect(await snapshot(h, alice)).toEqual(before);
    });

    it('an aborted upload leaves nothing behind', async () => {
      const before = await snapshot(h, alice);
      const controller = new AbortController();
      const input = createControlledStream();
      const put = h.files.put(alice, 'aborted.bin', input.stream, { signal: controller.signal });
      await input.pulled();
      input.push(pseudoRandomBytes(100_000, 2));
      await input.pulled();
      controller.abort();
      await expect(put).rejects.toThrow();
      expect(await snapshot(h, alice)).toEqual(before);
    });

    it('refuses unknown owners and invalid usernames', async () => {
      await expectFerryError(
        putBuffer(h.files, 'no-such-owner', 'a.txt', Buffer.from('a')),
        'E_INVALID_INPUT',
        /owner/,
      );
      await expectFerryError(h.files.ensureUser('../root'), 'E_INVALID_INPUT', /username/);
      await expectFerryError(h.files.usage('no-such-owner'), 'E_INVALID_INPUT', /owner/);
    });

    it('signs download tokens bound to owner and file', async () => {
      const file = await putBuffer(h.files, alice, 'signed.txt', Buffer.from('s'));
      const token = h.files.signDownload(alice, file.id);
      expect(h.files.verifyDownload(token, { owner: alice, fileId: file.id })).toMatchObject({ ok: true });
      expect(h.files.verifyDownload(token, { fileId: 'other' })).toEqual({ ok: false, reason: 'wrong_file' });
      expect(h.files.verifyDownload(token, { owner: 'mallory', fileId: file.id })).toEqual({
        ok: false,
        reason: 'wrong_owner',
      });
    });
  });
}
