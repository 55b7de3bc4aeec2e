// OAuth for remote MCP servers, per user (docs/oauth.md): the pool's transports get a provider
// per (server, user) that fails a call with E_AUTH_REQUIRED when the server wants an
// authorization Ferry lacks; the API's routes start the flow (a URL for the user's browser),
// finish it at the callback, list what the user has connected and revoke a connection. The SDK's
// auth() does the protocol; nothing here sees a token except to store or revoke it.
import { FerryError, type OAuthConnectionDto } from '@ferry/contract';
import {
  auth,
  type FetchLike,
  type OAuthClientMetadata,
  type StoredOAuthClientInformation,
} from '@modelcontextprotocol/client';
import type { RemoteServerConfig } from '../../servers/server-config.js';
import type { ServerRegistry } from '../../servers/server-registry.js';
import type { OAuthRecord, OAuthRecordStore } from './oauth-record.js';
import { revokeTokens } from './revoke-tokens.js';
import { StoredOAuthProvider } from './stored-oauth-provider.js';

export interface RemoteAuthOptions {
  registry: ServerRegistry;
  store: OAuthRecordStore;
  /** Ferry's callback, absolute; a function because the address is known only once Ferry listens. */
  redirectUrl: () => string;
  /** The Ferry route that starts the flow for a server (named in E_AUTH_REQUIRED and the list). */
  connectUrl: (server: string) => string;
  /**
   * Where Ferry serves its client ID metadata document (an https URL), when it is public:
   * authorization servers that support them need no registration. @default none: dynamic registration
   */
  clientMetadataUrl?: () => string | undefined;
  /** @default 'Ferry' */
  clientName?: string;
  /** @default globalThis.fetch */
  fetch?: FetchLike;
  /** @default Date.now */
  now?: () => number;
}

export type FinishResult =
  | { outcome: 'connected'; server: string; returnTo: string | undefined }
  | { outcome: 'declined'; server: string; returnTo: string | undefined; error: string };

export interface RemoteAuth {
  /** The provider of one connection; undefined for a server with OAuth off. */
  providerFor(server: RemoteServerConfig, user: string): StoredOAuthProvider | undefined;
  /** The authorization URL to send the user's browser to (a fresh state and PKCE verifier). */
  start(server: string, user: string, options?: { returnTo?: string }): Promise<URL>;
  /** The callback: exchanges the code (or records that the user declined). */
  finish(user: string, params: URLSearchParams): Promise<FinishResult>;
  /** Revokes the tokens at the authorization server (RFC 7009, when it offers it) and forgets them. */
  disconnect(server: string, user: string): Promise<{ deleted: boolean; revoked: boolean }>;
  /**
   * The user is being deleted: revokes what can be revoked, as disconnect does, and forgets every
   * row of theirs, also those of servers no longer configured. How many rows went, how many revoked.
   */
  forgetUser(user: string): Promise<{ deleted: number; revoked: number }>;
  /** Every remote server with OAuth on, as this user stands with it. */
  list(user: string): Promise<OAuthConnectionDto[]>;
  /** The metadata of Ferry as an OAuth client (also its client ID metadata document). */
  clientMetadata(): OAuthClientMetadata;
}

export function createRemoteAuth(options: RemoteAuthOptions): RemoteAuth {
  const { registry, store } = options;
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch;

  const clientMetadata = (): OAuthClientMetadata => ({
    client_name: options.clientName ?? 'Ferry',
    redirect_uris: [options.redirectUrl()],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });

  const remote = (name: string): RemoteServerConfig => {
    const server = registry.get(name);
    if (server.transport === 'stdio' || !server.oauth.enabled) {
      throw new FerryError('E_INVALID_INPUT', `MCP server "${name}" does not use OAuth`, {
        field: 'server',
        server: name,
      });
    }
    return server;
  };

  const provider = (server: RemoteServerConfig, user: string, mode: 'connection' | 'authorize') => {
    const { clientId, clientSecret } = server.oauth;
    const preRegistered: StoredOAuthClientInformation | undefined =
      clientId === undefined
        ? undefined
        : { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
    const metadataUrl = options.clientMetadataUrl?.();
    return new StoredOAuthProvider({
      store,
      user,
      server: server.name,
      mode,
      redirectUrl: options.redirectUrl(),
      clientMetadata: clientMetadata(),
      ...(metadataUrl !== undefined && { clientMetadataUrl: metadataUrl }),
      ...(preRegistered && { preRegistered }),
      connectUrl: options.connectUrl(server.name),
      now,
    });
  };

  const recordOf = async (user: string, server: string): Promise<OAuthRecord> =>
    ((await store.get(user, server))?.secrets ?? {}) as OAuthRecord;

  /** RFC 7009 revocation of a record's tokens; false when there are none or nothing was revoked. */
  const revoke = async (name: string, record: OAuthRecord): Promise<boolean> => {
    if (record.tokens === undefined) return false;
    // A server no longer configured has no pre-registered client: the registered one is used.
    const server = registry.has(name) ? registry.get(name) : undefined;
    const preRegistered =
      server !== undefined && server.transport !== 'stdio' && server.oauth.clientId !== undefined
        ? {
            client_id: server.oauth.clientId,
            ...(server.oauth.clientSecret !== undefined && { client_secret: server.oauth.clientSecret }),
          }
        : undefined;
    return revokeTokens({
      tokens: record.tokens,
      metadata: record.discoveryState?.authorizationServerMetadata,
      client: preRegistered ?? record.clientInformation,
      ...(fetchFn && { fetch: fetchFn }),
    });
  };

  return {
    providerFor(server, user) {
      return server.oauth.enabled ? provider(server, user, 'connection') : undefined;
    },

    async start(name, user, startOptions = {}) {
      const server = remote(name);
      const { discoveryState, ...record } = await recordOf(user, name);
      // Discovery afresh: the server may have moved to another authorization server since
      // (SEP-2352); a client registered with the old one reads back as absent (its issuer stamp).
      // Where the metadata was found is kept: a server may name it only in its 401's challenge.
      await store.put(user, name, record as Record<string, unknown>);
      const resourceMetadataUrl = discoveryState?.resourceMetadataUrl;
      const authorizer = provider(server, user, 'authorize');
      const result = await auth(authorizer, {
        serverUrl: server.url,
        // A step-up's scope (the union the server asked for), else the SDK's own choice.
        ...((record.pendingScope ?? server.oauth.scope) && {
          scope: record.pendingScope ?? server.oauth.scope,
        }),
        ...(resourceMetadataUrl !== undefined && { resourceMetadataUrl: new URL(resourceMetadataUrl) }),
        // The user asked to connect again: a fresh grant, not a refresh of the old one.
        forceReauthorization: true,
        ...(fetchFn && { fetchFn }),
      });
      if (result !== 'REDIRECT' || authorizer.authorizationUrl === undefined) {
        throw new FerryError('E_CONFLICT', `MCP server "${name}" gave Ferry a token without asking you`, {
          server: name,
        });
      }
      if (startOptions.returnTo !== undefined) {
        const stored = await store.get(user, name);
        await store.put(user, name, { ...(stored?.secrets ?? {}), returnTo: startOptions.returnTo });
      }
      return authorizer.authorizationUrl;
    },

    async finish(user, params) {
      const state = params.get('state');
      const found = state ? await store.findByState(user, state) : undefined;
      if (!state || found === undefined) {
        throw new FerryError(
          'E_INVALID_INPUT',
          'This authorization is unknown or already used: start it again',
          {
            field: 'state',
          },
        );
      }
      const name = found.server;
      const record = found.secrets as OAuthRecord;
      const returnTo = record.returnTo;
      const error = params.get('error');
      if (error !== null || params.get('code') === null) {
        // Declined (access_denied) or failed at the server: the attempt is over, the rest kept.
        const { codeVerifier: _c, returnTo: _r, ...rest } = record;
        await store.put(user, name, rest as Record<string, unknown>, null);
        return { outcome: 'declined', server: name, returnTo, error: error ?? 'no code' };
      }
      const server = remote(name);
      const authorizer = provider(server, user, 'authorize');
      try {
        await auth(authorizer, {
          serverUrl: server.url,
          authorizationCode: params.get('code') as string,
          ...(params.get('iss') !== null && { iss: params.get('iss') as string }),
          ...(fetchFn && { fetchFn }),
        });
      } catch (cause) {
        const { codeVerifier: _c, ...rest } = await recordOf(user, name);
        await store.put(user, name, rest as Record<string, unknown>, null);
        throw new FerryError(
          'E_TOOL_UNAVAILABLE',
          `MCP server "${name}": the authorization server refused the code (${errorText(cause)})`,
          { server: name },
        );
      }
      const { returnTo: _r, ...rest } = await recordOf(user, name);
      await store.put(user, name, rest as Record<string, unknown>, null);
      return { outcome: 'connected', server: name, returnTo };
    },

    async disconnect(name, user) {
      const revoked = await revoke(name, await recordOf(user, name));
      const deleted = await store.delete(user, name);
      return { deleted, revoked };
    },

    async forgetUser(user) {
      let revoked = 0;
      for (const row of await store.list(user)) {
        if (await revoke(row.server, row.secrets as OAuthRecord)) revoked++;
      }
      return { deleted: await store.deleteUser(user), revoked };
    },

    async list(user) {
      const rows = new Map((await store.list(user)).map((row) => [row.server, row.secrets as OAuthRecord]));
      return registry.list().flatMap((server): OAuthConnectionDto[] => {
        if (server.transport === 'stdio' || !server.oauth.enabled) return [];
        const record = rows.get(server.name) ?? {};
        const connectUrl = options.connectUrl(server.name);
        const expiresIn = record.tokens?.expires_in;
        const expiresAt =
          expiresIn !== undefined && record.tokensSavedAt !== undefined
            ? new Date(record.tokensSavedAt + expiresIn * 1000).toISOString()
            : undefined;
        if (record.needsConnect) {
          return [
            {
              server: server.name,
              state: 'needs-connect',
              ...(record.pendingScope !== undefined && { scope: record.pendingScope }),
              connectUrl,
            },
          ];
        }
        if (record.tokens !== undefined) {
          return [
            {
              server: server.name,
              state: 'connected',
              ...(record.tokens.scope !== undefined && { scope: record.tokens.scope }),
              ...(expiresAt !== undefined && { expiresAt }),
              connectUrl,
            },
          ];
        }
        return [{ server: server.name, state: 'unknown', connectUrl }];
      });
    },

    clientMetadata,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
