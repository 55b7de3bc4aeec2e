import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

// What Ferry keeps per (user, server) for OAuth, as one JSON object the store seals whole
// (@ferry/storage's OAuthCredentialStore): the SDK's own shapes, plus what Ferry adds.

export interface OAuthRecord {
  /** From dynamic client registration (a client secret, maybe), or the configured pre-registration. */
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When `tokens` were saved (epoch ms), to tell when the access token expires. */
  tokensSavedAt?: number;
  /** PKCE verifier of the authorization under way (only between start and callback). */
  codeVerifier?: string;
  /** Protected-resource and authorization-server metadata, kept across the redirect. */
  discoveryState?: OAuthDiscoveryState;
  /** The server asked for authorization (401 or a step-up) and Ferry has no usable token. */
  needsConnect?: boolean;
  /** The scope the last challenge asked for (a step-up's union), to request on the next start. */
  pendingScope?: string;
  /** Where the browser goes back to once the flow ends (a path of the web app). */
  returnTo?: string;
}

/** Where records live: @ferry/storage's OAuthCredentialStore, or a Map in a test or the conformance client. */
export interface OAuthRecordStore {
  get(
    user: string,
    server: string,
  ): Promise<{ secrets: Record<string, unknown>; state: string | null } | undefined>;
  put(user: string, server: string, secrets: Record<string, unknown>, state?: string | null): Promise<void>;
  findByState(
    user: string,
    state: string,
  ): Promise<{ server: string; secrets: Record<string, unknown> } | undefined>;
  list(user: string): Promise<{ server: string; secrets: Record<string, unknown>; state: string | null }[]>;
  delete(user: string, server: string): Promise<boolean>;
  /** Every row of a user (the user is being deleted); how many there were. */
  deleteUser(user: string): Promise<number>;
}

/** A store in memory: for tests and the conformance client (nothing survives the process). */
export function createMemoryOAuthRecordStore(): OAuthRecordStore {
  const rows = new Map<string, { server: string; secrets: Record<string, unknown>; state: string | null }>();
  const key = (user: string, server: string) => `${user}\n${server}`;
  const copy = <T>(value: T): T => structuredClone(value);
  return {
    async get(user, server) {
      const row = rows.get(key(user, server));
      return row && copy(row);
    },
    async put(user, server, secrets, state) {
      const current = rows.get(key(user, server));
      rows.set(key(user, server), {
        server,
        secrets: copy(secrets),
        state: state === undefined ? (current?.state ?? null) : state,
      });
    },
    async findByState(user, state) {
      for (const [k, row] of rows) if (k.startsWith(`${user}\n`) && row.state === state) return copy(row);
      return undefined;
    },
    async list(user) {
      return [...rows].filter(([k]) => k.startsWith(`${user}\n`)).map(([, row]) => copy(row));
    },
    async delete(user, server) {
      return rows.delete(key(user, server));
    },
    async deleteUser(user) {
      const mine = [...rows.keys()].filter((k) => k.startsWith(`${user}\n`));
      for (const k of mine) rows.delete(k);
      return mine.length;
    },
  };
}
