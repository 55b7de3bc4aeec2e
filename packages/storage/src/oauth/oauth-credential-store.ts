// OAuth credentials of remote MCP servers, per (user, server), in the catalog's database on the
// catalog's own connection (migration 0003_oauth_credentials), as conversations are. The store
// keeps an opaque JSON object per row, sealed (secret-box.ts): it knows nothing of OAuth; the host
// (packages/host/src/connections/oauth) decides what goes in it.
import type { Kysely } from 'kysely';
import { encodeTime } from '../catalog/rows.js';
import type { CatalogTables } from '../catalog/tables.js';
import type { CatalogTraits } from '../catalog/traits.js';
import type { Catalog } from '../catalog/types.js';
import { createSecretBox, type SecretBoxKey } from './secret-box.js';

export type OAuthSecrets = Record<string, unknown>;

export interface OAuthCredentialEntry {
  server: string;
  secrets: OAuthSecrets;
  /** The pending authorization's state, if one is under way. */
  state: string | null;
}

export interface OAuthCredentialStore {
  get(user: string, server: string): Promise<OAuthCredentialEntry | undefined>;
  /**
   * Writes the row. `state`: the pending authorization's state to look up at the callback;
   * undefined keeps the current one, null clears it.
   */
  put(user: string, server: string, secrets: OAuthSecrets, state?: string | null): Promise<void>;
  /** The row whose pending authorization has this state, for this user only. */
  findByState(user: string, state: string): Promise<OAuthCredentialEntry | undefined>;
  list(user: string): Promise<OAuthCredentialEntry[]>;
  /** Whether there was a row. */
  delete(user: string, server: string): Promise<boolean>;
  /** Every row of a user (the user is being deleted); how many there were. */
  deleteUser(user: string): Promise<number>;
}

export interface OAuthCredentialStoreOptions {
  keys: readonly SecretBoxKey[];
  activeKeyId: string;
  /** @default () => new Date() */
  now?: () => Date;
}

export function oauthCredentialStoreOf(
  catalog: Catalog,
  options: OAuthCredentialStoreOptions,
): OAuthCredentialStore {
  const { db, traits } = catalog.database;
  return createKyselyOAuthCredentialStore(db, traits, options);
}

function createKyselyOAuthCredentialStore(
  db: Kysely<CatalogTables>,
  traits: CatalogTraits,
  options: OAuthCredentialStoreOptions,
): OAuthCredentialStore {
  const box = createSecretBox(options.keys, options.activeKeyId);
  const now = options.now ?? (() => new Date());
  const bound = (user: string, server: string) => `${user}\n${server}`;
  const entry = (
    user: string,
    row: { server: string; secrets: string; state: string | null },
  ): OAuthCredentialEntry | undefined => {
    const plain = box.open(row.secrets, bound(user, row.server));
    // A row no listed key opens (the key was rotated out, or the row was tampered with) is as good
    // as none: the user connects again.
    if (plain === undefined) return undefined;
    const secrets = JSON.parse(plain) as unknown;
    if (typeof secrets !== 'object' || secrets === null || Array.isArray(secrets)) return undefined;
    return { server: row.server, secrets: secrets as OAuthSecrets, state: row.state };
  };
  const select = (user: string) =>
    db.selectFrom('oauth_credentials').select(['server', 'secrets', 'state']).where('username', '=', user);

  return {
    async get(user, server) {
      const row = await select(user).where('server', '=', server).executeTakeFirst();
      return row && entry(user, row);
    },
    async put(user, server, secrets, state) {
      const sealed = box.seal(JSON.stringify(secrets), bound(user, server));
      const updatedAt = encodeTime(traits, now());
      await db
        .insertInto('oauth_credentials')
        .values({ username: user, server, secrets: sealed, state: state ?? null, updated_at: updatedAt })
        .onConflict((oc) =>
          oc
            .columns(['username', 'server'])
            .doUpdateSet({ secrets: sealed, updated_at: updatedAt, ...(state !== undefined && { state }) }),
        )
        .execute();
    },
    async findByState(user, state) {
      const row = await select(user).where('state', '=', state).executeTakeFirst();
      return row && entry(user, row);
    },
    async list(user) {
      const rows = await select(user).orderBy('server').execute();
      return rows.flatMap((row) => entry(user, row) ?? []);
    },
    async delete(user, server) {
      const result = await db
        .deleteFrom('oauth_credentials')
        .where('username', '=', user)
        .where('server', '=', server)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async deleteUser(user) {
      const result = await db.deleteFrom('oauth_credentials').where('username', '=', user).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
