import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { describe, expect, it } from 'vitest';
import { checkSessionId, createSessions } from '../../src/auth/sessions.js';

/** The identity of owner id `owner` (username `user-<owner>`). */
const as = (owner: string) => ({ owner, username: `user-${owner}` });

function fakeFiles() {
  const ended: string[] = [];
  const endSession = async (key: string) => {
    ended.push(key);
    return 2;
  };
  return { ended, files: { endSession, idleSessions: async () => [] as string[] } };
}

describe('sessions', () => {
  it('scope the FileStore key by owner, so equal ids of two users are two sessions', async () => {
    const { files, ended } = fakeFiles();
    const sessions = createSessions({ files, idleMinutes: 1 });
    expect(sessions.open(as('alice'), 'shared-id-1234').key).not.toBe(
      sessions.open(as('bob'), 'shared-id-1234').key,
    );
    await sessions.end(as('bob'), 'shared-id-1234');
    expect(ended).toEqual(['bob:shared-id-1234']);
  });

  it('end on expiry: idle ones go, touched ones stay', async () => {
    let clock = 0;
    const { files, ended } = fakeFiles();
    const sessions = createSessions({ files, idleMinutes: 1, now: () => clock });
    sessions.open(as('o'), 'idle-session');
    sessions.open(as('o'), 'busy-session');
    clock = 50_000;
    sessions.touch(as('o'), 'busy-session');
    clock = 61_000;
    expect(await sessions.expire()).toBe(2);
    expect(ended).toEqual(['o:idle-session']);
    expect(sessions.size).toBe(1);
    clock = 200_000;
    await sessions.expire();
    expect(ended).toEqual(['o:idle-session', 'o:busy-session']);
    expect(sessions.size).toBe(0);
  });

  it('liveUsers lists the users with a live session; forget drops all of one user', async () => {
    let clock = 0;
    const sessions = createSessions({ files: fakeFiles().files, idleMinutes: 1, now: () => clock });
    sessions.open(as('a'), 'tab-one-1234');
    sessions.open(as('a'), 'tab-two-1234');
    sessions.open(as('b'), 'tab-one-1234');
    expect(sessions.liveUsers()).toEqual(new Set(['user-a', 'user-b']));
    await sessions.end(as('a'), 'tab-one-1234');
    expect(sessions.liveUsers()).toEqual(new Set(['user-a', 'user-b']));
    sessions.forget(as('a'));
    expect(sessions.liveUsers()).toEqual(new Set(['user-b']));
    expect(sessions.size).toBe(1);
    clock = 61_000;
    await sessions.expire();
    expect(sessions.liveUsers()).toEqual(new Set());
  });

  it('a new session gets a random id; ids are checked', () => {
    const sessions = createSessions({ files: fakeFiles().files, idleMinutes: 1 });
    const a = sessions.open(as('o'), undefined);
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkSessionId(undefined)).toBeUndefined();
    expect(checkSessionId('good_session-1')).toBe('good_session-1');
    for (const bad of ['short', 'has space here', 'x'.repeat(129), ['a', 'b']]) {
      expect(() => checkSessionId(bad)).toThrow(/x-ferry-session/);
    }
  });
});

describe('sessions across a restart (real FileStore, SQLite)', () => {
  it('a new instance ends the sessions it never saw once their newest file is idle long enough', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-sessions-'));
    let clock = Date.parse('2026-11-23T08:00:00Z');
    const config = loadStorageConfig({
      env: { FERRY_DATA_DIR: dir, FERRY_PERSIST_FILES_ACROSS_SESSIONS: 'false' },
    });
    const storage = await openStorage(config, { now: () => new Date(clock) });
    try {
      const owner = await storage.files.ensureUser('alice');
      const put = (name: string, sessionId: string) =>
        storage.files.put(owner, name, Readable.from([Buffer.from(name)]), { sessionId });
      // Before the restart: two sessions of the old instance, and one saved file.
      const old = new Date(clock);
      await put('old-a.txt', `${owner}:old-session-a`);
      await put('saved.txt', `${owner}:old-session-a`).then((file) => file);
      await storage.files.put(owner, 'kept.txt', Readable.from([Buffer.from('k')]), { persist: true });
      clock += 50 * 60_000;
      await put('recent-b.txt', `${owner}:recent-session-b`);

      // The new instance knows no session; an hour after the first files, 15 minutes after the last.
      clock = old.getTime() + 65 * 60_000;
      const sessions = createSessions({ files: storage.files, idleMinutes: 30, now: () => clock });
      // A client of the new instance comes back with a session whose files are old: still in use.
      sessions.open(as(owner), 'old-session-a'.replace('old', 'live'));
      const deleted = await sessions.expire();
      expect(deleted).toBe(2);
      const names = (await storage.files.list(owner)).items.map((file) => file.name).sort();
      expect(names).toEqual(['kept.txt', 'recent-b.txt']);

      // Later, the recent session is idle too.
      clock += 60 * 60_000;
      expect(await sessions.expire()).toBe(1);
      expect((await storage.files.list(owner)).items.map((file) => file.name)).toEqual(['kept.txt']);
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a session this instance still sees is not ended by its old files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-sessions-'));
    let clock = Date.parse('2026-11-23T08:00:00Z');
    const storage = await openStorage(
      loadStorageConfig({ env: { FERRY_DATA_DIR: dir, FERRY_PERSIST_FILES_ACROSS_SESSIONS: 'false' } }),
      { now: () => new Date(clock) },
    );
    try {
      const owner = await storage.files.ensureUser('bob');
      const sessions = createSessions({ files: storage.files, idleMinutes: 30, now: () => clock });
      const session = sessions.open(as(owner), 'long-lived-tab');
      await storage.files.put(owner, 'draft.txt', Readable.from([Buffer.from('d')]), {
        sessionId: session.key,
      });
      // The tab stays open and active for two hours, storing nothing new.
      for (let i = 0; i < 8; i++) {
        clock += 15 * 60_000;
        sessions.touch(as(owner), 'long-lived-tab');
        expect(await sessions.expire()).toBe(0);
      }
      expect((await storage.files.list(owner)).items.map((file) => file.name)).toEqual(['draft.txt']);
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
