// Owner isolation, limits and retention of the FileStore, on every combination.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoRandomBytes, readAll, streamOfBuffer } from '../support/streams.js';
import { expectFerryError, putBuffer } from './file-store-suite.js';
import type { Harness } from './harness.js';

export function describeFileStoreOwners(label: string, make: () => Promise<Harness>) {
  describe(`FileStore owners, limits and retention on ${label}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await make();
    });
    afterAll(async () => h?.close());

    it('no method lets one owner see or touch another owner’s files', async () => {
      const alice = await h.files.ensureUser('alice');
      const bob = await h.files.ensureUser('bob');
      const secret = await putBuffer(h.files, alice, 'secret.txt', Buffer.from('alice only'));
      const bobsOwn = await putBuffer(h.files, bob, 'mine.txt', Buffer.from('bob'));

      await expectFerryError(h.files.stat(bob, { id: secret.id }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.stat(bob, { name: 'secret.txt' }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.get(bob, { id: secret.id }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.get(bob, { name: 'secret.txt', version: 1 }), 'E_FILE_NOT_FOUND');
      expect(await h.files.resolve(bob, 'secret.txt')).toBeUndefined();
      expect(await h.files.versions(bob, 'secret.txt')).toEqual([]);
      expect((await h.files.list(bob, { allVersions: true })).items.map((f) => f.id)).toEqual([bobsOwn.id]);
      expect((await h.files.list(bob, { query: 'secret' })).total).toBe(0);
      await expect(h.files.rename(bob, secret.id, 'stolen.txt')).rejects.toThrow();
      await expectFerryError(h.files.delete(bob, secret.id), 'E_FILE_NOT_FOUND');
      expect(await h.files.deleteAllVersions(bob, 'secret.txt')).toBe(0);
      expect(await h.files.usage(bob)).toMatchObject({ count: 1, bytes: 3 });

      // Alice's file is untouched by all of that.
      const after = await h.files.get(alice, { id: secret.id });
      expect(after.file).toMatchObject({ name: 'secret.txt', version: 1 });
      expect((await readAll(after.stream)).toString()).toBe('alice only');
      expect((await h.files.usage(alice)).count).toBe(1);
    });

    it('refuses a file over max_file_size_mb and keeps one of exactly the limit', async () => {
      const owner = await h.files.ensureUser('limited');
      const limit = (await h.files.flags(owner)).max_file_size_bytes;
      const exact = await putBuffer(h.files, owner, 'exact.bin', pseudoRandomBytes(limit, 4));
      expect(exact.size).toBe(limit);
      const keysBefore = await h.blobKeys();
      const error = await expectFerryError(
        putBuffer(h.files, owner, 'over.bin', pseudoRandomBytes(limit + 1, 5)),
        'E_FILE_TOO_LARGE',
      );
      expect(error.details).toMatchObject({ current_limit_bytes: limit });
      expect(await h.blobKeys()).toEqual(keysBefore);
      expect((await h.files.list(owner)).items.map((f) => f.name)).toEqual(['exact.bin']);
      expect((await h.files.stats()).pending).toBe(0);
    });

    it('enforces a per-user quota', async () => {
      const owner = await h.files.ensureUser('quota');
      await h.catalog.updateUser(owner, { quotaBytes: 1000 });
      await putBuffer(h.files, owner, 'a.bin', pseudoRandomBytes(600, 6));
      await expectFerryError(
        putBuffer(h.files, owner, 'b.bin', pseudoRandomBytes(600, 7)),
        'E_QUOTA_EXCEEDED',
      );
      expect(await h.files.usage(owner)).toEqual({ bytes: 600, count: 1, quotaBytes: 1000 });
      await putBuffer(h.files, owner, 'c.bin', pseudoRandomBytes(400, 8));
    });

    it('deletes a session’s session-only files when it ends, and keeps persistent ones', async () => {
      const owner = await h.files.ensureUser('sessions');
      const temp = await h.files.put(owner, 'temp.txt', streamOfBuffer(Buffer.from('t')), {
        sessionId: 's1',
        persist: false,
      });
      const kept = await h.files.put(owner, 'kept.txt', streamOfBuffer(Buffer.from('k')), {
        sessionId: 's1',
      });
      expect(kept.persist).toBe(true);
      expect(await h.files.endSession('s1')).toBe(1);
      await expectFerryError(h.files.stat(owner, { id: temp.id }), 'E_FILE_NOT_FOUND');
      expect(await h.blobKeys()).not.toContain(temp.blobKey);
      expect((await h.files.stat(owner, { id: kept.id })).name).toBe('kept.txt');
    });

    it('follows the per-user persist_files_across_sessions flag', async () => {
      const owner = await h.files.ensureUser('ephemeral');
      await h.catalog.updateUser(owner, { flags: { persist_files_across_sessions: false } });
      const file = await h.files.put(owner, 'gone.txt', streamOfBuffer(Buffer.from('g')), {
        sessionId: 's2',
      });
      expect(file.persist).toBe(false);
      expect(await h.files.endSession('s2')).toBe(1);
    });

    it('expires deferred files after expires_hours (72 by default) through the sweeper', async () => {
      const owner = await h.files.ensureUser('deferred');
      const byDefault = await h.files.put(owner, 'draft.docx', streamOfBuffer(Buffer.from('d')), {
        source: 'deferred',
      });
      const short = await h.files.put(owner, 'short.md', streamOfBuffer(Buffer.from('s')), {
        source: 'deferred',
        expiresHours: 1,
      });
      expect(byDefault.expiresAt?.getTime()).toBe(h.clock.now.getTime() + 72 * 3_600_000);
      expect((await h.files.sweep()).expired).toBe(0);
      h.clock.advanceHours(2);
      expect((await h.files.sweep()).expired).toBe(1);
      await expectFerryError(h.files.stat(owner, { id: short.id }), 'E_FILE_NOT_FOUND');
      expect(await h.blobKeys()).not.toContain(short.blobKey);
      h.clock.advanceHours(71);
      expect((await h.files.sweep()).expired).toBe(1);
      expect(await h.blobKeys()).not.toContain(byDefault.blobKey);
    });

    it('a deferred file expires when it says: gone for every read at once, the sweep only reclaims it', async () => {
      const owner = await h.files.ensureUser('one-second');
      const kept = await putBuffer(h.files, owner, 'kept.txt', Buffer.from('kept'));
      const notesV1 = await putBuffer(h.files, owner, 'notes.md', Buffer.from('v1'));
      // What the host stores for `expires_hours: 1/3600`: a deferred file one second from now.
      const deferred = (name: string, text: string) =>
        h.files.put(owner, name, streamOfBuffer(Buffer.from(text)), {
          source: 'deferred',
          expiresAt: new Date(h.clock.now.getTime() + 1000),
        });
      const draft = await deferred('draft.md', '# draft');
      const notesV2 = await deferred('notes.md', 'v2');
      const ids = async () => (await h.files.list(owner)).items.map((f) => f.id);

      expect(await ids()).toEqual([draft.id, kept.id, notesV2.id]);
      h.clock.advanceMs(999);
      expect(await ids()).toEqual([draft.id, kept.id, notesV2.id]);
      expect((await readAll((await h.files.get(owner, { id: draft.id })).stream)).toString()).toBe('# draft');
      expect((await h.files.resolve(owner, 'draft.md'))?.id).toBe(draft.id);

      h.clock.advanceMs(1);
      // Listing: the draft is gone, and notes.md is its older version again.
      expect(await ids()).toEqual([kept.id, notesV1.id]);
      const all = await h.files.list(owner, { allVersions: true });
      expect(all.items.map((f) => f.id)).toEqual([kept.id, notesV1.id]);
      expect((await h.files.list(owner, { source: 'deferred' })).total).toBe(0);
      // Content and metadata, by id and by name.
      await expectFerryError(h.files.get(owner, { id: draft.id }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.stat(owner, { id: notesV2.id }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.stat(owner, { name: 'draft.md' }), 'E_FILE_NOT_FOUND');
      await expectFerryError(h.files.get(owner, { name: 'notes.md', version: 2 }), 'E_FILE_NOT_FOUND');
      // Name resolution, as tool arguments use it.
      expect(await h.files.resolve(owner, 'draft.md')).toBeUndefined();
      expect((await h.files.resolve(owner, 'notes.md'))?.id).toBe(notesV1.id);
      expect((await h.files.versions(owner, 'notes.md')).map((f) => f.id)).toEqual([notesV1.id]);

      // Nothing swept yet: the bytes are still stored until the sweep reclaims them.
      expect(await h.blobKeys()).toEqual(expect.arrayContaining([draft.blobKey, notesV2.blobKey]));
      h.clock.advanceMs(1);
      expect((await h.files.sweep()).expired).toBeGreaterThanOrEqual(2);
      const keys = await h.blobKeys();
      expect(keys).not.toContain(draft.blobKey);
      expect(keys).not.toContain(notesV2.blobKey);
      expect(keys).toEqual(expect.arrayContaining([kept.blobKey, notesV1.blobKey]));
    });

    it('deleteUser removes every file, blob and the user row of that user only', async () => {
      const gone = await h.files.ensureUser('leaving');
      const stays = await h.files.ensureUser('staying');
      const v1 = await putBuffer(h.files, gone, 'a.txt', Buffer.from('one'));
      const v2 = await putBuffer(h.files, gone, 'a.txt', Buffer.from('two'));
      const temp = await h.files.put(gone, 'temp.txt', streamOfBuffer(Buffer.from('t')), {
        sessionId: 'leaving:s',
        persist: false,
      });
      const deferred = await h.files.put(gone, 'later.bin', streamOfBuffer(Buffer.from('d')), {
        source: 'deferred',
      });
      const other = await putBuffer(h.files, stays, 'a.txt', Buffer.from('other'));
      const leavingKeys = [v1, v2, temp, deferred].map((f) => f.blobKey);
      for (const key of leavingKeys) expect(await h.blobKeys()).toContain(key);

      expect(await h.files.deleteUser(gone)).toBe(4);
      const keys = await h.blobKeys();
      for (const key of leavingKeys) expect(keys).not.toContain(key);
      expect(keys).toContain(other.blobKey);
      expect(await h.catalog.getUser(gone)).toBeUndefined();
      await expectFerryError(h.files.usage(gone), 'E_INVALID_INPUT');
      expect(await h.files.endSession('leaving:s')).toBe(0);
      // The other user is untouched, and the name comes back as a new, empty user.
      expect((await readAll((await h.files.get(stays, { id: other.id })).stream)).toString()).toBe('other');
      const again = await h.files.ensureUser('leaving');
      expect(again).not.toBe(gone);
      expect(await h.files.usage(again)).toMatchObject({ count: 0, bytes: 0 });
      expect(await h.files.deleteUser(gone)).toBe(0);
    });
  });
}
