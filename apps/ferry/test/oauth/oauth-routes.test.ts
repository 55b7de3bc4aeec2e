// The OAuth routes through a real Ferry (startServer: config → storage → host → app), a loopback
// authorization server and the MCP server it protects; the test plays the browser. Covers the
// wiring server.ts does (the pool's providers, the encrypted store, the callback URL).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  followAuthorization,
  type ProtectedMcpServer,
  type TestOAuthServer,
} from '@ferry/test-helpers/oauth-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { type OAuthFerry, startOAuthFerry } from '../support/oauth-ferry.js';

let env: OAuthFerry;
let dir: string;
let as: TestOAuthServer;
let mcp: ProtectedMcpServer;
let ferry: RunningServer;

beforeAll(async () => {
  env = await startOAuthFerry('ferry-oauth-routes-');
  ({ dir, as, mcp, ferry } = env);
});
afterAll(() => env?.close());

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${ferry.url}${path}`, { redirect: 'manual', ...init });

/** The browser: Ferry's start route → the authorization server → Ferry's callback → the web app. */
async function connectInBrowser(): Promise<{ authorizeUrl: URL; landing: string }> {
  const start = await api('/api/oauth/remote/start?returnTo=/servers');
  expect(start.status).toBe(302);
  const authorizeUrl = new URL(start.headers.get('location') as string);
  expect(authorizeUrl.origin).toBe(as.issuer);
  const callback = await followAuthorization(authorizeUrl);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${ferry.url}/api/oauth/callback`);
  const back = await api(`${callback.pathname}${callback.search}`);
  expect(back.status).toBe(302);
  return { authorizeUrl, landing: back.headers.get('location') as string };
}

describe('OAuth routes', () => {
  it('401 → E_AUTH_REQUIRED with the connect URL; connect in the browser; tools; disconnect', async () => {
    const denied = await api('/api/servers/remote/tools');
    expect(denied.status).toBe(403);
    const envelope = (await denied.json()) as {
      meta_data: { error_code: string; details: Record<string, unknown> };
    };
    expect(envelope.meta_data.error_code).toBe('E_AUTH_REQUIRED');
    expect(envelope.meta_data.details.connectUrl).toBe('/api/oauth/remote/start');

    expect(await (await api('/api/oauth')).json()).toEqual({
      items: [
        { server: 'remote', state: 'needs-connect', scope: 'mcp', connectUrl: '/api/oauth/remote/start' },
      ],
    });

    const { authorizeUrl, landing } = await connectInBrowser();
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(`${ferry.url}/api/oauth/callback`);
    expect(authorizeUrl.searchParams.get('resource')).toBe(mcp.url);
    expect(landing).toBe('/servers?oauth=connected&server=remote');

    const tools = await api('/api/servers/remote/tools');
    expect(tools.status).toBe(200);
    const names = ((await tools.json()) as { items: { name: string }[] }).items.map((tool) => tool.name);
    expect(names.sort()).toEqual(['admin', 'whoami']);

    const list = await (await api('/api/oauth')).text();
    expect(JSON.parse(list).items[0]).toMatchObject({ server: 'remote', state: 'connected', scope: 'mcp' });
    // Neither the list nor the database file holds the token in clear.
    const token = mcp.bearers.at(-1) as string;
    expect(token).toMatch(/^at-/);
    expect(list).not.toContain(token);
    const db = await readFile(join(dir, '.ferry', 'catalog.db'));
    expect(db.includes(Buffer.from(token))).toBe(false);

    const disconnected = await api('/api/oauth/remote', { method: 'DELETE' });
    expect(await disconnected.json()).toEqual({ deleted: true, revoked: true });
    expect(as.verify(token)).toBeUndefined();
    expect((await (await api('/api/oauth')).json()) as unknown).toEqual({
      items: [{ server: 'remote', state: 'unknown', connectUrl: '/api/oauth/remote/start' }],
    });
  });

  it('a user who declines lands back in the web app, still unconnected', async () => {
    as.decision = 'deny';
    try {
      const { landing } = await connectInBrowser();
      expect(landing).toBe('/servers?oauth=declined&server=remote');
      const items = ((await (await api('/api/oauth')).json()) as { items: { state: string }[] }).items;
      expect(items[0]?.state).not.toBe('connected');
    } finally {
      as.decision = 'approve';
    }
  });

  it('a callback with an unknown state is refused', async () => {
    const response = await api('/api/oauth/callback?state=nope&code=abc');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { meta_data: { error_code: string } }).meta_data.error_code).toBe(
      'E_INVALID_INPUT',
    );
  });

  it('start of an unknown server is 404', async () => {
    expect((await api('/api/oauth/nope/start')).status).toBe(404);
  });
});
