// One suite for every dialect of the OAuth credential store (as test/catalog/catalog-suite.ts):
// migration 0003_oauth_credentials as the dialect made it, the store's contract, sealing at rest
// (what the database holds) and key rotation. `open` gives a catalog (migrated) and a way to open
// a second one on the same database, whose reads show what was committed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/types.js';
import { type OAuthCredentialStore, oauthCredentialStoreOf } from '../../src/oauth/oauth-credential-store.js';
import type { SecretBoxKey } from '../../src/oauth/secret-box.js';

const OLD_KEY: SecretBoxKey = { id: 'k1', secret: 'o'.repeat(40) };
const NEW_KEY: SecretBoxKey = { id: 'k2', secret: 'n'.repeat(40) };

export interface OAuthSuiteDatabase {
  catalog: Catalog;
  /** A second catalog (its own connection) on the same database; `cleanup` closes it. */
  reopen(): Promise<Catalog>;
  cleanup(): Promise<void>;
}

export function describeOAuthCredentialStore(name: string, open: () => Promise<OAuthSuiteDatabase>): void {
  describe(`oauth credential store (${name})`, () => {
    let database: OAuthSuiteDatabase | undefined;
    let openError: unknown;
    // A database that cannot be opened fails every test with the reason, never skips them.
    const db = (): OAuthSuiteDatabase => {
      if (!database) throw openError ?? new Error(`${name} is not open`);
      return database;
    };
    beforeAll(async () => {
      try {
        database = await open();
      } catch (error) {
        openError = error;
      }
    });
    afterAll(async () => {
      await database?.cleanup();
    });

    const storeOf = (
      catalog: Catalog,
      keys: SecretBoxKey[] = [OLD_KEY],
      activeKeyId = keys[0]?.id ?? '',
      now?: () => Date,
    ): OAuthCredentialStore =>
      oauthCredentialStoreOf(catalog, { keys, activeKeyId, ...(now ? { now } : {}) });
    const store = () => storeOf(db().catalog);
    /** Users are fresh per test: the tests share one database. */
    const newUser = (stem: string) => `${stem}-${randomUUID()}`;
    const rawRows = (user: string) =>
      db()
        .catalog.database.db.selectFrom('oauth_credentials')
        .selectAll()
        .where('username', '=', user)
        .orderBy('server')
        .execute();

    it('migration 0003 made oauth_credentials with the dialect’s types, keyed by (user, server)', async () => {
      const { db: kysely, traits } = db().catalog.database;
      const tables = await kysely.introspection.getTables();
      const table = tables.find(
        (t) => t.name === 'oauth_credentials' && (traits.schema === undefined || t.schema === traits.schema),
      );
      expect(table, 'oauth_credentials is in the catalog').toBeDefined();
      const columns = Object.fromEntries(
        (table?.columns ?? []).map((c) => [
          c.name,
          { type: c.dataType.toLowerCase(), nullable: c.isNullable },
        ]),
      );
      expect(columns).toEqual({
        username: { type: 'text', nullable: false },
        server: { type: 'text', nullable: false },
        state: { type: 'text', nullable: true },
        secrets: { type: 'text', nullable: false },
        updated_at: { type: traits.nativeTimestamps ? 'timestamptz' : 'text', nullable: false },
      });
      // The primary key: a second row for the same (user, server) is refused by the database.
      const user = newUser('pk');
      const row = {
        username: user,
        server: 's',
        state: null,
        secrets: 'x',
        updated_at: new Date().toISOString(),
      };
      await kysely.insertInto('oauth_credentials').values(row).execute();
      const duplicate = await kysely
        .insertInto('oauth_credentials')
        .values(row)
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(traits.isUniqueViolation(duplicate), String(duplicate)).toBe(true);
    });

    it('migrating again changes nothing; a second catalog reads what the first wrote', async () => {
      const user = newUser('alice');
      await store().put(user, 'crm', { tokens: { access_token: 'at-1' }, note: 'ü ✓' }, 'st-1');
      await db().catalog.migrate();
      const second = await db().reopen();
      await second.migrate();
      expect(await storeOf(second).get(user, 'crm')).toEqual({
        server: 'crm',
        secrets: { tokens: { access_token: 'at-1' }, note: 'ü ✓' },
        state: 'st-1',
      });
    });

    it('put writes one row per (user, server): state kept when undefined, cleared by null', async () => {
      const user = newUser('bob');
      const s = store();
      expect(await s.get(user, 'crm')).toBeUndefined();
      await s.put(user, 'crm', { step: 1 }, 'state-a');
      await s.put(user, 'crm', { step: 2 });
      expect(await s.get(user, 'crm')).toEqual({ server: 'crm', secrets: { step: 2 }, state: 'state-a' });
      await s.put(user, 'crm', { step: 3 }, 'state-b');
      expect((await s.get(user, 'crm'))?.state).toBe('state-b');
      await s.put(user, 'crm', { step: 4 }, null);
      expect(await s.get(user, 'crm')).toEqual({ server: 'crm', secrets: { step: 4 }, state: null });
      expect(await rawRows(user)).toHaveLength(1);
    });

    it('put records when: updated_at is the store’s clock, in the dialect’s time type', async () => {
      const user = newUser('clock');
      const first = new Date('2030-01-02T03:04:05.678Z');
      const later = new Date('2030-01-02T04:00:00.000Z');
      let now = first;
      const s = storeOf(db().catalog, [OLD_KEY], 'k1', () => now);
      await s.put(user, 'crm', { a: 1 });
      const stamp = async () => {
        const value = (await rawRows(user))[0]?.updated_at;
        return value instanceof Date ? value.toISOString() : value;
      };
      expect(await stamp()).toBe(first.toISOString());
      now = later;
      await s.put(user, 'crm', { a: 2 });
      expect(await stamp()).toBe(later.toISOString());
    });

    it('concurrent puts of one (user, server) leave one row holding one of the writes', async () => {
      const user = newUser('race');
      const s = store();
      await Promise.all(Array.from({ length: 12 }, (_, i) => s.put(user, 'crm', { write: i }, `st-${i}`)));
      const rows = await rawRows(user);
      expect(rows).toHaveLength(1);
      const got = await s.get(user, 'crm');
      expect(got?.secrets.write).toEqual(expect.any(Number));
      expect(got?.state).toBe(`st-${got?.secrets.write}`);
    });

    it('findByState finds the pending authorization for its own user only', async () => {
      const alice = newUser('alice');
      const mallory = newUser('mallory');
      const s = store();
      await s.put(alice, 'crm', { codeVerifier: 'v' }, 'shared-state');
      await s.put(alice, 'mail', { codeVerifier: 'w' }, 'other-state');
      expect(await s.findByState(alice, 'shared-state')).toEqual({
        server: 'crm',
        secrets: { codeVerifier: 'v' },
        state: 'shared-state',
      });
      expect((await s.findByState(alice, 'other-state'))?.server).toBe('mail');
      expect(await s.findByState(mallory, 'shared-state')).toBeUndefined();
      expect(await s.findByState(alice, 'no-such-state')).toBeUndefined();
      await s.put(alice, 'crm', { tokens: { access_token: 'at' } }, null);
      expect(await s.findByState(alice, 'shared-state')).toBeUndefined();
    });

    it('list is one user’s rows ordered by server; delete and deleteUser touch only theirs', async () => {
      const alice = newUser('alice');
      const bob = newUser('bob');
      const s = store();
      for (const server of ['zeta', 'Alpha', 'mail', 'crm']) await s.put(alice, server, { server });
      await s.put(bob, 'crm', { bob: true });
      // Names whose order is the same in byte order (SQLite) and in any locale's (PostgreSQL).
      expect((await s.list(alice)).map((row) => row.server)).toEqual(['Alpha', 'crm', 'mail', 'zeta']);
      expect((await s.list(bob)).map((row) => row.secrets)).toEqual([{ bob: true }]);

      expect(await s.delete(alice, 'mail')).toBe(true);
      expect(await s.delete(alice, 'mail')).toBe(false);
      expect(await s.delete(alice, 'nope')).toBe(false);
      expect(await s.deleteUser(alice)).toBe(3);
      expect(await s.list(alice)).toEqual([]);
      expect(await rawRows(alice)).toEqual([]);
      expect(await s.deleteUser(alice)).toBe(0);
      expect(await s.get(bob, 'crm')).toEqual({ server: 'crm', secrets: { bob: true }, state: null });
    });

    it('deleteUser also removes rows no key opens any more', async () => {
      const user = newUser('rotated-out');
      await storeOf(db().catalog, [OLD_KEY]).put(user, 'crm', { a: 1 });
      const onlyNew = storeOf(db().catalog, [NEW_KEY]);
      expect(await onlyNew.list(user)).toEqual([]);
      expect(await onlyNew.deleteUser(user)).toBe(1);
      expect(await rawRows(user)).toEqual([]);
    });

    it('the database holds only ciphertext, bound to its row', async () => {
      const user = newUser('sealed');
      const other = newUser('thief');
      const s = store();
      const token = `at-${randomUUID()}`;
      await s.put(user, 'crm', { tokens: { access_token: token, refresh_token: 'rt-secret' } });
      const [row] = await rawRows(user);
      expect(row?.secrets).toMatch(/^o1\.k1\.[\w-]+\.[\w-]+$/);
      expect(row?.secrets).not.toContain(token);
      expect(row?.secrets).not.toContain('rt-secret');
      expect(row?.username).toBe(user);

      // Copied to another user's row, or another server's, it does not open: as good as no row.
      const { db: kysely, traits } = db().catalog.database;
      const updatedAt = traits.nativeTimestamps ? new Date() : new Date().toISOString();
      await kysely
        .insertInto('oauth_credentials')
        .values([
          { username: other, server: 'crm', state: 'st', secrets: row?.secrets ?? '', updated_at: updatedAt },
          { username: user, server: 'mail', state: null, secrets: row?.secrets ?? '', updated_at: updatedAt },
        ])
        .execute();
      expect(await s.get(other, 'crm')).toBeUndefined();
      expect(await s.findByState(other, 'st')).toBeUndefined();
      expect(await s.get(user, 'mail')).toBeUndefined();
      expect((await s.list(user)).map((entry) => entry.server)).toEqual(['crm']);

      // Tampered with: one byte of the ciphertext changed.
      const sealed = row?.secrets ?? '';
      const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
      await kysely
        .updateTable('oauth_credentials')
        .set({ secrets: flipped })
        .where('username', '=', user)
        .where('server', '=', 'crm')
        .execute();
      expect(await s.get(user, 'crm')).toBeUndefined();
    });

    it('rotation: the active key seals, every listed key opens; a key removed no longer opens', async () => {
      const user = newUser('rotation');
      await storeOf(db().catalog, [OLD_KEY]).put(user, 'crm', { v: 'old' });
      const rotated = storeOf(db().catalog, [NEW_KEY, OLD_KEY], 'k2');
      expect((await rotated.get(user, 'crm'))?.secrets).toEqual({ v: 'old' });
      await rotated.put(user, 'mail', { v: 'new' });
      expect((await rawRows(user)).map((row) => row.secrets.split('.')[1])).toEqual(['k1', 'k2']);

      const onlyNew = storeOf(db().catalog, [NEW_KEY]);
      expect(await onlyNew.get(user, 'crm')).toBeUndefined();
      expect((await onlyNew.get(user, 'mail'))?.secrets).toEqual({ v: 'new' });
      // Written again under the new key, the row opens again.
      await rotated.put(user, 'crm', { v: 'resealed' });
      expect((await onlyNew.get(user, 'crm'))?.secrets).toEqual({ v: 'resealed' });
    });

    it('keeps large records and unusual names whole', async () => {
      const user = newUser('ünïcode.user');
      const server = 'crm-prod_eu.2';
      const big = { blob: 'x'.repeat(200_000), nested: { list: [1, 'two', null, { three: true }] } };
      await store().put(user, server, big, 's'.repeat(300));
      const second = storeOf(await db().reopen());
      expect(await second.get(user, server)).toEqual({ server, secrets: big, state: 's'.repeat(300) });
    });
  });
}
