import { describe, expect, it } from 'vitest';
import { checkSessionId, createSessions } from '../../src/auth/sessions.js';

function fakeFiles() {
  const ended: string[] = [];
  const endSession = async (key: string) => {
    ended.push(key);
    return 2;
  };
  return { ended, files: { endSession } };
}

describe('sessions', () => {
  it('scope the FileStore key by owner, so equal ids of two users are two sessions', async () => {
    const { files, ended } = fakeFiles();
    const sessions = createSessions({ files, idleMinutes: 1 });
    expect(sessions.open('alice', 'shared-id-1234').key).not.toBe(sessions.open('bob', 'shared-id-1234').key);
    await sessions.end('bob', 'shared-id-1234');
    expect(ended).toEqual(['bob:shared-id-1234']);
  });

  it('end on expiry: idle ones go, touched ones stay', async () => {
    let clock = 0;
    const { files, ended } = fakeFiles();
    const sessions = createSessions({ files, idleMinutes: 1, now: () => clock });
    sessions.open('o', 'idle-session');
    sessions.open('o', 'busy-session');
    clock = 50_000;
    sessions.touch('o', 'busy-session');
    clock = 61_000;
    expect(await sessions.expire()).toBe(2);
    expect(ended).toEqual(['o:idle-session']);
    expect(sessions.size).toBe(1);
    clock = 200_000;
    await sessions.expire();
    expect(ended).toEqual(['o:idle-session', 'o:busy-session']);
    expect(sessions.size).toBe(0);
  });

  it('a new session gets a random id; ids are checked', () => {
    const sessions = createSessions({ files: fakeFiles().files, idleMinutes: 1 });
    const a = sessions.open('o', undefined);
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkSessionId(undefined)).toBeUndefined();
    expect(checkSessionId('good_session-1')).toBe('good_session-1');
    for (const bad of ['short', 'has space here', 'x'.repeat(129), ['a', 'b']]) {
      expect(() => checkSessionId(bad)).toThrow(/x-ferry-session/);
    }
  });
});
