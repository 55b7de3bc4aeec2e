// A small OAuth 2.1 authorization server and an MCP server it protects, both on 127.0.0.1 in the
// test's process (node:http), for Ferry's OAuth tests (docs/oauth.md). The authorization server
// does what the MCP authorization spec asks of one: RFC 8414 metadata, dynamic client
// registration (RFC 7591), the authorization endpoint with PKCE S256 required, resource
// indicators (RFC 8707) and `iss` in the response (RFC 9207), authorization_code and
// refresh_token grants (refresh tokens rotate), revocation (RFC 7009). The "user" approves or
// declines as `decision` says. The MCP server answers 401 with RFC 9728 metadata, and 403
// insufficient_scope for a tool whose scope the token lacks (step-up).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { mcpSessions } from './mcp-sessions.js';

export interface IssuedToken {
  token: string;
  clientId: string;
  scope: string;
  resource: string | undefined;
  /** Epoch ms. */
  expiresAt: number;
  /** The refresh token that goes with it (revoking it revokes this one). */
  refreshToken: string;
}

export interface OAuthServerEvent {
  endpoint: 'metadata' | 'register' | 'authorize' | 'token' | 'revoke';
  params: Record<string, string>;
  /** The Authorization header of the request, if any. */
  authorization?: string;
}

export interface TestOAuthServer {
  /** The issuer, e.g. http://127.0.0.1:41234 */
  issuer: string;
  /** What the "user" does at the authorization endpoint. @default 'approve' */
  decision: 'approve' | 'deny';
  /** Lifetime of new access tokens, seconds. @default 3600 */
  accessTokenSeconds: number;
  /** Every request, in order. */
  readonly events: OAuthServerEvent[];
  /** The access token's grant if it is live (issued, not expired, not revoked). */
  verify(token: string): IssuedToken | undefined;
  /** Makes every access token issued so far expire now (refresh tokens stay good). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface Client {
  id: string;
  secret: string;
  redirectUris: string[];
  authMethod: string;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  resource: string | undefined;
}

export async function startOAuthServer(
  options: { scopesSupported?: string[] } = {},
): Promise<TestOAuthServer> {
  const clients = new Map<string, Client>();
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, Omit<PendingCode, 'challenge' | 'redirectUri'>>();
  const events: OAuthServerEvent[] = [];
  let issuer = '';

  const state: TestOAuthServer = {
    issuer: '',
    decision: 'approve',
    accessTokenSeconds: 3600,
    events,
    verify(token) {
      const grant = accessTokens.get(token);
      if (grant === undefined || grant.expiresAt <= Date.now() || !refreshTokens.has(grant.refreshToken))
        return undefined;
      return grant;
    },
    expireAccessTokens() {
      for (const grant of accessTokens.values()) grant.expiresAt = 0;
    },
    close: async () => {},
  };

  const issue = (grant: Omit<PendingCode, 'challenge' | 'redirectUri'>, res: ServerResponse) => {
    const token = `at-${randomBytes(16).toString('hex')}`;
    const refreshToken = `rt-${randomBytes(16).toString('hex')}`;
    refreshTokens.set(refreshToken, grant);
    accessTokens.set(token, {
      token,
      clientId: grant.clientId,
      scope: grant.scope,
      resource: grant.resource,
      expiresAt: Date.now() + state.accessTokenSeconds * 1000,
      refreshToken,
    });
    json(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: state.accessTokenSeconds,
      refresh_token: refreshToken,
      ...(grant.scope && { scope: grant.scope }),
    });
  };

  /** RFC 6749 §2.3.1: Basic or the body's client_id/client_secret; a public client sends only the id. */
  const authenticate = (req: IncomingMessage, params: Record<string, string>): Client | undefined => {
    let id = params.client_id;
    let secret = params.client_secret;
    const header = req.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const client = id === undefined ? undefined : clients.get(id);
    if (client === undefined) return undefined;
    if (client.authMethod !== 'none' && client.secret !== secret) return undefined;
    return client;
  };

  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const body = req.method === 'POST' ? await readBody(req) : '';
    const params =
      req.headers['content-type']?.includes('json') && body
        ? (JSON.parse(body) as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(req.method === 'POST' ? body : url.search));
    const record = (endpoint: OAuthServerEvent['endpoint']) =>
      events.push({
        endpoint,
        params,
        ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }),
      });

    if (url.pathname === '/.well-known/oauth-authorization-server') {
      record('metadata');
      json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        revocation_endpoint: `${issuer}/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        authorization_response_iss_parameter_supported: true,
        ...(options.scopesSupported && { scopes_supported: options.scopesSupported }),
      });
      return;
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      record('register');
      const metadata = params as unknown as { redirect_uris?: string[]; token_endpoint_auth_method?: string };
      const client: Client = {
        id: `client-${randomUUID()}`,
        secret: `secret-${randomBytes(16).toString('hex')}`,
        redirectUris: metadata.redirect_uris ?? [],
        authMethod: metadata.token_endpoint_auth_method ?? 'client_secret_basic',
      };
      clients.set(client.id, client);
      json(res, 201, {
        ...metadata,
        client_id: client.id,
        ...(client.authMethod !== 'none' && { client_secret: client.secret }),
        token_endpoint_auth_method: client.authMethod,
      });
      return;
    }
    if (url.pathname === '/authorize') {
      record('authorize');
      const client = clients.get(params.client_id ?? '');
      const redirectUri = params.redirect_uri ?? '';
      if (client === undefined || !client.redirectUris.includes(redirectUri)) {
        json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
        return;
      }
      const back = new URL(redirectUri);
      if (params.state) back.searchParams.set('state', params.state);
      back.searchParams.set('iss', issuer);
      if (
        params.response_type !== 'code' ||
        !params.code_challenge ||
        params.code_challenge_method !== 'S256'
      ) {
        back.searchParams.set('error', 'invalid_request');
      } else if (state.decision === 'deny') {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user declined');
      } else {
        const code = `code-${randomBytes(16).toString('hex')}`;
        codes.set(code, {
          clientId: client.id,
          redirectUri,
          challenge: params.code_challenge,
          scope: params.scope ?? '',
          resource: params.resource,
        });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      record('token');
      const client = authenticate(req, params);
      if (client === undefined) {
        json(res, 401, { error: 'invalid_client' });
        return;
      }
      if (params.grant_type === 'authorization_code') {
        const pending = codes.get(params.code ?? '');
        codes.delete(params.code ?? '');
        const verifier = params.code_verifier ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          pending === undefined ||
          pending.clientId !== client.id ||
          pending.redirectUri !== params.redirect_uri ||
          pending.challenge !== challenge
        ) {
          json(res, 400, { error: 'invalid_grant' });
          return;
        }
        issue(
          { clientId: client.id, scope: pending.scope, resource: params.resource ?? pending.resource },
          res,
        );
        return;
      }
      if (params.grant_type === 'refresh_token') {
        const grant = refreshTokens.get(params.refresh_token ?? '');
        if (grant === undefined || grant.clientId !== client.id) {
          json(res, 400, { error: 'invalid_grant' });
          return;
        }
        // Rotation (OAuth 2.1 §4.3.1): the old refresh token and its access tokens end here.
        refreshTokens.delete(params.refresh_token ?? '');
        issue(grant, res);
        return;
      }
      json(res, 400, { error: 'unsupported_grant_type' });
      return;
    }
    if (url.pathname === '/revoke' && req.method === 'POST') {
      record('revoke');
      if (authenticate(req, params) === undefined) {
        json(res, 401, { error: 'invalid_client' });
        return;
      }
      const token = params.token ?? '';
      refreshTokens.delete(token);
      accessTokens.delete(token);
      res.writeHead(200).end();
      return;
    }
    json(res, 404, { error: 'not_found' });
  });
  const address = await listen(http);
  issuer = `http://127.0.0.1:${address.port}`;
  state.issuer = issuer;
  state.close = () => close(http);
  return state;
}

export interface ProtectedMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:41235/mcp */
  url: string;
  /** The bearer token of every MCP request ('' when there was none), in order. */
  readonly bearers: string[];
  close(): Promise<void>;
}

/**
 * An MCP server (tools `whoami`, and `admin` that needs the `admin` scope) that takes the
 * access tokens of `as` issued for its URL, with scope `mcp` at least.
 */
export async function startProtectedMcpServer(as: TestOAuthServer): Promise<ProtectedMcpServer> {
  const sessions = mcpSessions({ jsonResponse: true });
  const bearers: string[] = [];
  let base = '';
  const prmUrl = () => `${base}/.well-known/oauth-protected-resource/mcp`;
  const challenge = (res: ServerResponse, status: 401 | 403, error: string, scope: string) => {
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer error="${error}", scope="${scope}", resource_metadata="${prmUrl()}"`,
      })
      .end(JSON.stringify({ error }));
  };

  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      json(res, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [as.issuer],
        scopes_supported: ['mcp', 'admin'],
      });
      return;
    }
    if (url.pathname !== '/mcp') {
      json(res, 404, { error: 'not_found' });
      return;
    }
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    bearers.push(token);
    const grant = token ? as.verify(token) : undefined;
    const scopes = new Set(grant?.scope.split(' ') ?? []);
    if (grant === undefined || grant.resource !== `${base}/mcp` || !scopes.has('mcp')) {
      challenge(res, 401, 'invalid_token', 'mcp');
      return;
    }
    const raw = req.method === 'POST' ? await readBody(req) : undefined;
    const body = raw ? (JSON.parse(raw) as unknown) : undefined;
    const wantsAdmin =
      typeof body === 'object' &&
      body !== null &&
      (body as { method?: unknown }).method === 'tools/call' &&
      (body as { params?: { name?: unknown } }).params?.name === 'admin';
    if (wantsAdmin && !scopes.has('admin')) {
      challenge(res, 403, 'insufficient_scope', 'mcp admin');
      return;
    }
    await sessions.handle(
      req,
      res,
      () => {
        const server = new McpServer({ name: 'protected', version: '1.0.0' });
        server.registerTool('whoami', { description: 'The client the token was issued to' }, async () => ({
          content: [{ type: 'text', text: `client ${grant.clientId}` }],
        }));
        server.registerTool('admin', { description: 'Needs the admin scope' }, async () => ({
          content: [{ type: 'text', text: 'admin ok' }],
        }));
        return server;
      },
      body,
    );
  });
  const address = await listen(http);
  base = `http://127.0.0.1:${address.port}`;
  return {
    url: `${base}/mcp`,
    bearers,
    async close() {
      await sessions.close();
      await close(http);
    },
  };
}

export interface ProtectedRemote {
  as: TestOAuthServer;
  mcp: ProtectedMcpServer;
  /** Stops the MCP server, then the authorization server. */
  close(): Promise<void>;
}

/** An authorization server and the MCP server it protects (`startProtectedMcpServer`), started together. */
export async function startProtectedRemote(): Promise<ProtectedRemote> {
  const as = await startOAuthServer();
  try {
    const mcp = await startProtectedMcpServer(as);
    return {
      as,
      mcp,
      close: async () => {
        await mcp.close();
        await as.close();
      },
    };
  } catch (error) {
    await as.close();
    throw error;
  }
}

/**
 * What the user's browser does with an authorization URL: asks the authorization server (which
 * decides at once) and returns where it is sent back to, the callback URL with code or error.
 */
export async function followAuthorization(authorizationUrl: URL | string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null) {
    throw new Error(`the authorization server answered ${response.status}, not a redirect`);
  }
  return new URL(location);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(http: Server): Promise<AddressInfo> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return http.address() as AddressInfo;
}

async function close(http: Server): Promise<void> {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}
