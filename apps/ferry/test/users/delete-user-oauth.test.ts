// Deleting a user also forgets their OAuth credentials (docs/oauth.md): a real Ferry from
// startServer in proxy mode, a loopback authorization server and the MCP server it protects; the
// test plays both users' browsers. Checked in the catalog (every row of the user, also one of a
// server no longer configured) and at the authorization server (the tokens were revoked), while
// another user's connection stays.
import {
  followAuthorization,
  type ProtectedMcpServer,
  type TestOAuthServer,
} from '@ferry/test-helpers/oauth-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { type OAuthFerry, startOAuthFerry } from '../support/oauth-ferry.js';
import { asUser, PROXY_SECRET } from '../support/start-app.js';

let env: OAuthFerry;

let as: TestOAuthServer;
let mcp: ProtectedMcpServer;
let ferry: RunningServer;

beforeAll(async () => {
  env = await startOAuthFerry('ferry-delete-oauth-', { auth: { mode: 'proxy', proxySecret: PROXY_SECRET } });
  ({ as, mcp, ferry } = env);
});
afterAll(() => env?.close());

const api = (user: string, path: string, init: RequestInit = {}) =>
  fetch(`${ferry.url}${path}`, {
    redirect: 'manual',
    ...init,
    headers: { ...asUser(user), ...(init.headers as Record<string, string> | undefined) },
  });

/** The user's browser: start → authorization server (approves) → callback; then one tool call. */
async function connect(user: string): Promise<string> {
  const start = await api(user, '/api/oauth/remote/start');
  expect(start.status).toBe(302);
  const callback = await followAuthorization(start.headers.get('location') as string);
  const back = await api(user, `${callback.pathname}${callback.search}`);
  expect(back.headers.get('location')).toBe('/?oauth=connected&server=remote');
  const tools = await api(user, '/api/servers/remote/tools');
  expect(tools.status).toBe(200);
  const token = mcp.bearers.at(-1) as string;
  expect(as.verify(token)).toBeDefined();
  return token;
}

describe('deleting a user', () => {
  it('revokes and deletes every OAuth row of the user, and only theirs', async () => {
    const aliceToken = await connect('alice');
    const bobToken = await connect('bob');
    // A row of a server since removed from the configuration: it goes too.
    await ferry.storage.oauth.put('alice', 'retired', { tokens: { access_token: 'old' } }, 'state-1');
    expect((await ferry.storage.oauth.list('alice')).map((row) => row.server)).toEqual(['remote', 'retired']);
    const revokesBefore = as.events.filter((event) => event.endpoint === 'revoke').length;

    const deleted = await api('alice', '/api/users/alice', { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(((await deleted.json()) as { username: string }).username).toBe('alice');

    expect(await ferry.storage.oauth.list('alice')).toEqual([]);
    expect(await ferry.storage.oauth.get('alice', 'remote')).toBeUndefined();
    expect(await ferry.storage.oauth.get('alice', 'retired')).toBeUndefined();
    expect(await ferry.storage.oauth.findByState('alice', 'state-1')).toBeUndefined();
    // Nothing is left that no key opens either: deleteUser has no row to count.
    expect(await ferry.storage.oauth.deleteUser('alice')).toBe(0);
    // Revoked at the authorization server (refresh and access token of "remote"); the retired
    // server's row had no metadata to revoke with.
    expect(as.verify(aliceToken)).toBeUndefined();
    const revokes = as.events.filter((event) => event.endpoint === 'revoke').slice(revokesBefore);
    expect(revokes.map((event) => event.params.token_type_hint)).toEqual(['refresh_token', 'access_token']);

    // Bob is untouched.
    expect((await ferry.storage.oauth.list('bob')).map((row) => row.server)).toEqual(['remote']);
    expect(as.verify(bobToken)).toBeDefined();
    expect(((await (await api('bob', '/api/oauth')).json()) as { items: { state: string }[] }).items).toEqual(
      [expect.objectContaining({ server: 'remote', state: 'connected' })],
    );

    // Alice, back again, starts over: not connected.
    const again = await api('alice', '/api/oauth');
    expect(((await again.json()) as { items: { state: string }[] }).items[0]?.state).toBe('unknown');
  });
});
