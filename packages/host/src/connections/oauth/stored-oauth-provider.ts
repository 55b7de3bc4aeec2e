import { randomBytes } from 'node:crypto';
import { FerryError } from '@ferry/contract';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthRecord, OAuthRecordStore } from './oauth-record.js';

// The SDK drives OAuth (discovery, registration, PKCE, resource indicators, scope selection,
// refresh, step-up); this provider only keeps what it is given, per (user, server), in Ferry's
// store, and decides what "redirect the user" means:
//
// - 'connection' (the pool's transports): there is no browser. The server asked for authorization
//   and Ferry has no token it will take: the record is marked, and the call fails with
//   E_AUTH_REQUIRED pointing at Ferry's start route. Nothing of the attempt (verifier, state) is
//   kept, so it cannot spoil a flow the user has under way in a browser.
// - 'authorize' (the start and callback routes): the URL is handed to the caller, who sends the
//   user's browser there; verifier and state are kept for the callback.

export type ProviderMode = 'connection' | 'authorize';

export interface StoredOAuthProviderOptions {
  store: OAuthRecordStore;
  user: string;
  server: string;
  mode: ProviderMode;
  /** Ferry's callback, absolute (`https://ferry.example.com/api/oauth/callback`). */
  redirectUrl: string;
  clientMetadata: OAuthClientMetadata;
  /** An https URL where Ferry serves `clientMetadata` (a client ID metadata document). */
  clientMetadataUrl?: string;
  /** A client registered beforehand (the server's `oauth.clientId`): no dynamic registration. */
  preRegistered?: StoredOAuthClientInformation;
  /** The Ferry route that starts the flow for this server, named in E_AUTH_REQUIRED. */
  connectUrl: string;
  /** @default Date.now */
  now?: () => number;
}

export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #o: StoredOAuthProviderOptions;
  #state: string | undefined;
  #verifier: string | undefined;
  /** Set in 'connection' mode when the server asked for an authorization Ferry cannot give. */
  authorizationRequired: FerryError | undefined;
  /** Set in 'authorize' mode: where to send the user's browser. */
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl?: string;

  constructor(options: StoredOAuthProviderOptions) {
    this.#o = options;
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#o.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.#o.clientMetadata;
  }

  state(): string {
    this.#state ??= randomBytes(32).toString('base64url');
    return this.#state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    return this.#o.preRegistered ?? (await this.#load()).clientInformation;
  }

  async saveClientInformation(clientInformation: StoredOAuthClientInformation): Promise<void> {
    await this.#update((record) => ({ ...record, clientInformation }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.#load()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const now = (this.#o.now ?? Date.now)();
    await this.#update(
      ({ needsConnect: _n, pendingScope: _p, codeVerifier: _c, ...record }) => ({
        ...record,
        tokens,
        tokensSavedAt: now,
      }),
      // The authorization, if one was under way, is over.
      null,
    );
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
    if (this.#o.mode === 'authorize') {
      this.authorizationUrl = authorizationUrl;
      const state = this.#state ?? authorizationUrl.searchParams.get('state') ?? undefined;
      await this.#update(
        (record) => ({
          ...record,
          ...(this.#verifier !== undefined && { codeVerifier: this.#verifier }),
          needsConnect: true,
          ...(scope !== undefined && { pendingScope: scope }),
        }),
        state ?? null,
      );
      return;
    }
    await this.#update(({ pendingScope: _p, ...record }) => ({
      ...record,
      needsConnect: true,
      ...(scope !== undefined && { pendingScope: scope }),
    }));
    const { server, connectUrl } = this.#o;
    this.authorizationRequired = new FerryError(
      'E_AUTH_REQUIRED',
      `MCP server "${server}" needs you to connect your account: open ${connectUrl}, then run the tool again`,
      { server, connectUrl, ...(scope !== undefined && { scope }) },
    );
    throw this.authorizationRequired;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    // Kept with the state when the browser is sent off (redirectToAuthorization); never in
    // 'connection' mode.
    this.#verifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    const verifier = this.#verifier ?? (await this.#load()).codeVerifier;
    if (verifier === undefined) throw new Error('No authorization is under way for this server');
    return verifier;
  }

  async saveDiscoveryState(discoveryState: OAuthDiscoveryState): Promise<void> {
    await this.#update((record) => ({ ...record, discoveryState }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load()).discoveryState;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.#update((record) => {
      if (scope === 'all') return {};
      const next = { ...record };
      if (scope === 'client') delete next.clientInformation;
      if (scope === 'tokens') {
        delete next.tokens;
        delete next.tokensSavedAt;
      }
      if (scope === 'verifier') delete next.codeVerifier;
      if (scope === 'discovery') delete next.discoveryState;
      return next;
    });
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
  }

  async #load(): Promise<OAuthRecord> {
    const row = await this.#o.store.get(this.#o.user, this.#o.server);
    return (row?.secrets ?? {}) as OAuthRecord;
  }

  async #update(change: (record: OAuthRecord) => OAuthRecord, state?: string | null): Promise<void> {
    const next = change(await this.#load());
    await this.#o.store.put(this.#o.user, this.#o.server, next as Record<string, unknown>, state);
  }
}
