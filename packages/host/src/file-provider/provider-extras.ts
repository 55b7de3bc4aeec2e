// What a connection of a server with `fileProvider` gets: a token minted for this (server, user)
// connection alone (revoked when it closes, so a new connection never inherits a dead one's), the
// user's endpoint URL, and for a local server the user's socket, which the sandbox binds at
// /run/ferry/file-provider.sock. The variables' names are the contract's, so server-kit reads the
// same ones.
import {
  FILE_PROVIDER_SOCKET_ENV,
  FILE_PROVIDER_TOKEN_ENV,
  FILE_PROVIDER_URL_ENV,
  SANDBOX_FILE_PROVIDER_SOCKET,
} from '@ferry/contract';
import type { ConnectionExtras, ConnectionExtrasSource } from '../connections/connection-extras.js';
import type { ServerConfig } from '../servers/server-config.js';
import type { FileProvider } from './create-file-provider.js';

/** With the provider off (or none), a server's placeholders are filled with '' and it gets nothing else. */
const WITHOUT_PROVIDER: ConnectionExtras = Object.freeze({
  placeholders: Object.freeze({ fileProviderUrl: '', fileProviderToken: '' }),
  env: Object.freeze({}),
  sockets: Object.freeze([]),
  release: () => {},
});

/** The connection extras of `provider` (undefined: the provider is off). */
export function providerExtras(provider: FileProvider | undefined): ConnectionExtrasSource {
  return async (server, user) => {
    if (!server.fileProvider.enabled) return undefined;
    if (provider === undefined) return WITHOUT_PROVIDER;
    const { compat } = server.fileProvider;
    const { token, grant } = provider.tokens.mint({ username: user, server: server.name, compat });
    const release = () => void provider.tokens.revoke(grant.grantId);
    try {
      const url = provider.urlFor(user, compat);
      const local = server.transport === 'stdio';
      const socket = local ? await provider.socketFor(user) : undefined;
      return {
        placeholders: { fileProviderUrl: url, fileProviderToken: token },
        renewAt: renewalTime(grant.expiresAt.getTime(), provider.settings.tokenTtlSeconds, server),
        env: local ? { [FILE_PROVIDER_URL_ENV]: url, [FILE_PROVIDER_TOKEN_ENV]: token } : {},
        sockets: socket
          ? [{ hostPath: socket, toolPath: SANDBOX_FILE_PROVIDER_SOCKET, env: FILE_PROVIDER_SOCKET_ENV }]
          : [],
        release,
      };
    } catch (error) {
      release();
      throw error;
    }
  };
}

/**
 * When the pool should move new calls to a new connection (with a new token): early enough that a
 * call started just before can run its longest (the server's hard cap, and a minute) while the old
 * token still holds, but never before half the token's life, so a short TTL still renews rarely.
 */
function renewalTime(expiresAt: number, ttlSeconds: number, server: ServerConfig): number {
  const room = (server.timeouts.hardCapSeconds + 60) * 1000;
  return Math.max(expiresAt - room, expiresAt - (ttlSeconds * 1000) / 2);
}
