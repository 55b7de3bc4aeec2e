// The official SDK client on Ferry's file provider (Streamable HTTP, the token as a bearer header),
// and the seven tools the provider must list: what the provider's tests in the host, the app and
// server-kit all check against.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The provider's tools with the optional ones on, sorted: written out, not read from the source. */
export const FILE_PROVIDER_TOOL_NAMES: readonly string[] = [
  'calculate_file_hash',
  'file_exists',
  'find_files',
  'get_file_stats',
  'list_directory',
  'read_file',
  'read_file_binary',
];

export interface ProviderClientOptions {
  /** Sent as `Authorization: Bearer …`; left out, the URL must carry the token (?access_token=). */
  token?: string;
  /** How requests reach the provider, e.g. unixSocketFetch(path) for its per-user socket. */
  fetch?: typeof fetch;
}

/** Connects (initialize + initialized); the caller closes the client. */
export async function connectProviderClient(
  url: string,
  options: ProviderClientOptions = {},
): Promise<Client> {
  const client = new Client({ name: 'file-provider-test', version: '0.0.0' });
  const headers: Record<string, string> =
    options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
  return client;
}
