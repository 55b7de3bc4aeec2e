import type {
  AuthorizationServerMetadata,
  FetchLike,
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * RFC 7009 token revocation: the refresh token first (revoking it ends the grant at most
 * servers), then the access token. False when the server offers no revocation endpoint or
 * refused every request: the tokens are forgotten by Ferry either way.
 */
export async function revokeTokens(input: {
  tokens: OAuthTokens;
  metadata: AuthorizationServerMetadata | undefined;
  client: OAuthClientInformationMixed | undefined;
  fetch?: FetchLike;
}): Promise<boolean> {
  // RFC 8414 fields the SDK's OpenID-flavoured union does not always name.
  const metadata = input.metadata as
    | { revocation_endpoint?: unknown; revocation_endpoint_auth_methods_supported?: unknown }
    | undefined;
  const endpoint = metadata?.revocation_endpoint;
  if (typeof endpoint !== 'string' || input.client === undefined) return false;
  const { client } = input;
  const doFetch = input.fetch ?? fetch;
  const methods = Array.isArray(metadata?.revocation_endpoint_auth_methods_supported)
    ? (metadata.revocation_endpoint_auth_methods_supported as unknown[])
    : [];
  const useBasic =
    client.client_secret !== undefined && (methods.length === 0 || methods.includes('client_secret_basic'));
  let revoked = false;
  const tokens: [string, string][] = [];
  if (input.tokens.refresh_token) tokens.push([input.tokens.refresh_token, 'refresh_token']);
  tokens.push([input.tokens.access_token, 'access_token']);
  for (const [token, hint] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (useBasic) {
      const id = encodeURIComponent(client.client_id);
      const secret = encodeURIComponent(client.client_secret ?? '');
      headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    } else {
      body.set('client_id', client.client_id);
      if (client.client_secret !== undefined) body.set('client_secret', client.client_secret);
    }
    try {
      const response = await doFetch(endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel().catch(() => {});
      revoked ||= response.ok;
    } catch {
      // Unreachable: the tokens are forgotten anyway; they expire on their own.
    }
  }
  return revoked;
}
