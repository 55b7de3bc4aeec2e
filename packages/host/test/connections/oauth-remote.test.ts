// OAuth for remote servers, end to end on loopback: Ferry's pool and RemoteAuth over the real
// catalog (SQLite, credentials encrypted), a real authorization server and an MCP server it
// protects (@ferry/test-helpers/oauth-servers). The test plays the user's browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { createSqliteCatalog, oauthCredentialStoreOf } from '@ferry/storage';
import {
  followAuthorization,
  type ProtectedMcpServer,
  type ProtectedRemote,
  startProtectedRemote,
  type TestOAuthServer,
} from '@ferry/test-helpers/oauth-servers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionPool } from '../../src/connections/connection.js';
import { createConnectionPool } from '../../src/connections/connection-pool.js';
import { createRemoteAuth, type RemoteAuth } from '../../src/connections/oauth/remote-auth.js';
import { createServerRegistry } from '../../src/servers/server-registry.js';
import { never, textOf } from '../support/pool-per-test.js';

const REDIRECT = 'http://127.0.0.1:9/api/oauth/callback';
const SECRET = 'a-test-token-secret-of-at-least-32-bytes!';

let remote: ProtectedRemote;
let as: TestOAuthServer;
let mcp: ProtectedMcpServer;
let dir: string;
let catalog: Awaited<ReturnType<typeof createSqliteCatalog>>;
let remoteAuth: RemoteAuth;
let pool: ConnectionPool;

beforeAll(async () => {
  remote = await startProtectedRemote();
  ({ as, mcp } = remote);
});
afterAll(() => remote?.close());

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-oauth-'));
  catalog = await createSqliteCatalog({ filename: join(dir, 'catalog.db') });
  const store = oauthCredentialStoreOf(catalog, { keys: [{ id: 'k1', secret: SECRET }], activeKeyId: 'k1' });
  const registry = createServerRegistry({ remote: { transport: 'http', url: mcp.url } });
  remoteAuth = createRemoteAuth({
    registry,
    store,
    redirectUrl: () => REDIRECT,
    connectUrl: (server) => `/api/oauth/${server}/start`,
  });
  pool = createConnectionPool({
    registry,
    onStderr: () => {},
    authProvider: (server, user) => remoteAuth.providerFor(server, user),
  });
  as.decision = 'approve';
  as.accessTokenSeconds = 3600;
});
afterEach(async () => {
  await pool.close();
  await catalog.close();
  rmSync(dir, { recursive: true, force: true });
});

/** pool.get's failure, which must be E_AUTH_REQUIRED. */
async function authRequired(user: string): Promise<FerryError> {
  const error = await pool.get('remote', user).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FerryError);
  expect((error as FerryError).code).toBe('E_AUTH_REQUIRED');
  return error as FerryError;
}

/** Start → the authorization server → Ferry's callback, as the user's browser would. */
async function connect(user: string) {
  const url = await remoteAuth.start('remote', user);
  const back = await followAuthorization(url);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return { url, result: await remoteAuth.finish(user, back.searchParams) };
}

const rawRows = () =>
  catalog.database.db.selectFrom('oauth_credentials').selectAll().execute() as Promise<
    { username: string; server: string; secrets: string; state: string | null }[]
  >;

describe('OAuth for a remote server', () => {
  it('a server that answers 401 fails the connection with E_AUTH_REQUIRED, then connects after the flow', async () => {
    const error = await authRequired('alice');
    expect(error.details).toMatchObject({ server: 'remote', connectUrl: '/api/oauth/remote/start' });
    expect(await remoteAuth.list('alice')).toEqual([
      { server: 'remote', state: 'needs-connect', scope: 'mcp', connectUrl: '/api/oauth/remote/start' },
    ]);

    const { url, result } = await connect('alice');
    // PKCE S256, a resource indicator for the server, the scope it named, a registered client.
    expect(url.origin).toBe(as.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('resource')).toBe(mcp.url);
    expect(url.searchParams.get('scope')).toBe('mcp');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(as.events.filter((e) => e.endpoint === 'register').length).toBeGreaterThanOrEqual(1);
    expect(result).toEqual({ outcome: 'connected', server: 'remote', returnTo: undefined });

    const [status] = await remoteAuth.list('alice');
    expect(status).toMatchObject({ server: 'remote', state: 'connected', scope: 'mcp' });
    expect(Date.parse(status?.expiresAt ?? '')).toBeGreaterThan(Date.now());

    const connection = await pool.get('remote', 'alice');
    expect((await connection.listTools()).map((tool) => tool.name).sort()).toEqual(['admin', 'whoami']);
    const whoami = await connection.callTool({ name: 'whoami', arguments: {} }, { signal: never() });
    expect(textOf(whoami)).toMatch(/^client client-/);
    expect(mcp.bearers.at(-1)).toMatch(/^at-/);

    // At rest the row is ciphertext: no token, no client secret in it.
    const [row] = await rawRows();
    const token = mcp.bearers.at(-1) as string;
    expect(row?.secrets.startsWith('o1.k1.')).toBe(true);
    expect(row?.secrets).not.toContain(token);
    expect(row?.secrets).not.toContain('secret-');
    expect(row?.state).toBeNull();
  });

  it('tokens belong to one user: another still has to connect', async () => {
    await authRequired('alice');
    await connect('alice');
    await pool.get('remote', 'alice');
    await authRequired('bob');
  });

  it('an access token the server refuses is refreshed, and the call goes through', async () => {
    await authRequired('alice');
    await connect('alice');
    const connection = await pool.get('remote', 'alice');
    await connection.callTool({ name: 'whoami', arguments: {} }, { signal: never() });
    const before = mcp.bearers.at(-1);
    const refreshes = () =>
      as.events.filter((e) => e.endpoint === 'token' && e.params.grant_type === 'refresh_token').length;
    expect(refreshes()).toBe(0);

    as.expireAccessTokens();
    const result = await connection.callTool({ name: 'whoami', arguments: {} }, { signal: never() });
    expect(textOf(result)).toMatch(/^client /);
    expect(refreshes()).toBe(1);
    expect(mcp.bearers.at(-1)).not.toBe(before);
    expect(as.verify(mcp.bearers.at(-1) as string)).toBeDefined();
    expect((await remoteAuth.list('alice'))[0]?.state).toBe('connected');
  });

  it('a user who declines stays unconnected, and the attempt is forgotten', async () => {
    await authRequired('alice');
    as.decision = 'deny';
    const { result } = await connect('alice');
    expect(result).toMatchObject({ outcome: 'declined', server: 'remote', error: 'access_denied' });
    expect((await remoteAuth.list('alice'))[0]?.state).toBe('needs-connect');
    expect((await rawRows())[0]?.state).toBeNull();
    await authRequired('alice');
    // The callback cannot be replayed: its state is gone.
    const url = await remoteAuth.start('remote', 'alice');
    const state = url.searchParams.get('state') as string;
    await expect(
      remoteAuth.finish('alice', new URLSearchParams({ state: 'forged', code: 'x' })),
    ).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
    // Another user cannot finish this user's flow.
    await expect(remoteAuth.finish('bob', new URLSearchParams({ state, code: 'x' }))).rejects.toMatchObject({
      code: 'E_INVALID_INPUT',
    });
  });

  it('disconnect revokes the tokens at the authorization server and forgets them', async () => {
    await authRequired('alice');
    await connect('alice');
    const connection = await pool.get('remote', 'alice');
    await connection.callTool({ name: 'whoami', arguments: {} }, { signal: never() });
    const token = mcp.bearers.at(-1) as string;
    const refreshToken = as.verify(token)?.refreshToken;

    expect(await remoteAuth.disconnect('remote', 'alice')).toEqual({ deleted: true, revoked: true });
    const revoked = as.events.filter((e) => e.endpoint === 'revoke').map((e) => e.params.token);
    expect(revoked).toEqual([refreshToken, token]);
    expect(as.verify(token)).toBeUndefined();
    expect(await rawRows()).toEqual([]);
    expect((await remoteAuth.list('alice'))[0]?.state).toBe('unknown');

    // The open connection has no token to send any more: the next call asks to connect again.
    const error = await connection.callTool({ name: 'whoami', arguments: {} }, { signal: never() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'E_AUTH_REQUIRED' });
  });

  it('403 insufficient_scope asks the user again for the wider scope (step-up)', async () => {
    await authRequired('alice');
    await connect('alice');
    const connection = await pool.get('remote', 'alice');
    const error = await connection.callTool({ name: 'admin', arguments: {} }, { signal: never() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'E_AUTH_REQUIRED', details: { scope: 'mcp admin' } });
    expect((await remoteAuth.list('alice'))[0]).toMatchObject({ state: 'needs-connect', scope: 'mcp admin' });

    const { url } = await connect('alice');
    expect(url.searchParams.get('scope')).toBe('mcp admin');
    const fresh = await pool.get('remote', 'alice');
    const result = await fresh.callTool({ name: 'admin', arguments: {} }, { signal: never() });
    expect(textOf(result)).toBe('admin ok');
    expect((await remoteAuth.list('alice'))[0]).toMatchObject({ state: 'connected', scope: 'mcp admin' });
  });

  it('a row sealed under a key no longer listed reads as no credentials', async () => {
    await authRequired('alice');
    await connect('alice');
    const other = oauthCredentialStoreOf(catalog, {
      keys: [{ id: 'k2', secret: 'another-secret-of-at-least-32-bytes-long' }],
      activeKeyId: 'k2',
    });
    expect(await other.get('alice', 'remote')).toBeUndefined();
    // Moved to another user's row, the ciphertext does not open either.
    const [row] = await rawRows();
    await catalog.database.db
      .insertInto('oauth_credentials')
      .values({
        username: 'bob',
        server: 'remote',
        secrets: row?.secrets as string,
        state: null,
        updated_at: new Date().toISOString(),
      })
      .execute();
    const store = oauthCredentialStoreOf(catalog, {
      keys: [{ id: 'k1', secret: SECRET }],
      activeKeyId: 'k1',
    });
    expect(await store.get('bob', 'remote')).toBeUndefined();
    expect(await store.get('alice', 'remote')).toBeDefined();
  });
});
