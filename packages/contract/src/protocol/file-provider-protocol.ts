// What Ferry and a tool server (through server-kit) must agree on to reach the user's file
// provider (the client callback tools of spec/client-file-provider-callbacks.md): the variables a
// local server gets, where the socket is inside the sandbox, and the endpoint's path. Defined once
// here so a server that looked under another name fails in a test, not in production.

/** Ferry's HTTP URL of the user's provider endpoint (standard MCP, or the compatibility surface). */
export const FILE_PROVIDER_URL_ENV = 'FERRY_FILE_PROVIDER_URL';
/** The bearer token of this server's connection: `Authorization: Bearer <token>`. */
export const FILE_PROVIDER_TOKEN_ENV = 'FERRY_FILE_PROVIDER_TOKEN';
/**
 * A unix socket serving the same endpoint: when set, a client sends its HTTP requests there (URL
 * path and Host as in the URL). A sandboxed server has no network to Ferry, only this socket.
 */
export const FILE_PROVIDER_SOCKET_ENV = 'FERRY_FILE_PROVIDER_SOCKET';
/** Where the user's provider socket is bound inside the sandbox (read-only; still connectable). */
export const SANDBOX_FILE_PROVIDER_SOCKET = '/run/ferry/file-provider.sock';

/**
 * The endpoint's path below Ferry's base URL: `/api/file-provider/{username}/mcp`, or `/compat`
 * for clients that read a tools/call's JSON-RPC `result` as the tool's bare value. A valid
 * username (`isValidUsername`) needs no escaping in a path.
 */
export function fileProviderPath(username: string, compat = false): string {
  return `/api/file-provider/${username}/${compat ? 'compat' : 'mcp'}`;
}

/** The spec's error types (`error_type` of the `{ error, error_type }` a callback answers). */
export const PROVIDER_ERROR_TYPES = Object.freeze([
  'FileNotFoundError',
  'PermissionError',
  'FileSizeLimitExceededError',
  'FileProviderError',
] as const);
export type ProviderErrorType = (typeof PROVIDER_ERROR_TYPES)[number];

/** The spec's error object, returned (never thrown) by every tool but file_exists. */
export interface ProviderError {
  error: string;
  error_type: ProviderErrorType;
}

/** get_file_stats' value, the spec's shape. */
export interface ProviderFileStats {
  /** The path as the user's tools see it (under /tmp/{username}). */
  path: string;
  file_type: 'file' | 'directory' | 'symlink';
  size: number;
  /** ISO 8601. */
  modified_time: string;
  is_readable: boolean;
  is_directory: boolean;
}
