// A tool server's side of Ferry's file provider (../shared/spec/client-file-provider-callbacks.md,
// version 1.0.0): an MCP server inside Ferry that reads the calling user's files on the server's
// behalf, so a server that holds no files (or runs in a sandbox without them) can still read the
// user's workspace and My Files, read-only. Ferry hands a server with `"fileProvider": true` three
// variables: the endpoint's URL, a bearer token and, for a local server, a Unix socket that carries
// the same HTTP (a sandboxed server has no network). connectFileProvider reads them and returns an
// official SDK Client plus one typed helper per provider tool.
import {
  FILE_PROVIDER_SOCKET_ENV,
  FILE_PROVIDER_TOKEN_ENV,
  FILE_PROVIDER_URL_ENV,
  PROVIDER_ERROR_TYPES,
  type ProviderErrorType,
  type ProviderFileStats,
} from '@ferry/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { unixSocketFetch } from './unix-socket-fetch.js';

/** The spec's error types; an answer with any other type is reported as FileProviderError. */
export type FileProviderErrorType = ProviderErrorType;
const ERROR_TYPES: readonly string[] = PROVIDER_ERROR_TYPES;

/** The provider answered a callback with the spec's `{error, error_type}`. */
export class FileProviderCallError extends Error {
  override readonly name = 'FileProviderCallError';
  readonly errorType: FileProviderErrorType;
  /** The provider tool that answered it. */
  readonly tool: string;

  constructor(tool: string, errorType: FileProviderErrorType, message: string) {
    super(message);
    this.tool = tool;
    this.errorType = errorType;
  }
}

/** get_file_stats' answer, as the spec shapes it. */
export type FileProviderStats = ProviderFileStats;

export type FileHashAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';

export interface ConnectFileProviderOptions {
  /** The provider's MCP endpoint. @default env FERRY_FILE_PROVIDER_URL */
  url?: string | URL;
  /** Its bearer token. @default env FERRY_FILE_PROVIDER_TOKEN */
  token?: string;
  /**
   * A Unix socket carrying the endpoint's HTTP (the URL then gives only the path and Host);
   * `null` forces TCP. @default env FERRY_FILE_PROVIDER_SOCKET
   */
  socketPath?: string | null;
  /** Where the defaults come from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default { name: 'ferry-file-provider-client', version: '1.0.0' } */
  clientInfo?: { name: string; version: string };
}

export interface FileProvider {
  /** The connected SDK client, for anything the helpers do not cover. */
  readonly client: Client;
  /** read_file: the text, decoded by the provider. */
  readText(path: string, options?: { encoding?: string; maxSize?: number }): Promise<string>;
  /** read_file_binary: the bytes (the provider sends base64). */
  readBinary(path: string, options?: { maxSize?: number }): Promise<Buffer>;
  /** list_directory: absolute paths of files and directories. */
  list(
    dir: string,
    options?: { pattern?: string; recursive?: boolean; maxFiles?: number },
  ): Promise<string[]>;
  /** file_exists: never throws a FileProviderCallError (false for anything refused). */
  exists(path: string): Promise<boolean>;
  /** get_file_stats. */
  stats(path: string): Promise<FileProviderStats>;
  /** calculate_file_hash: the hex digest. @default algorithm 'md5', as the spec */
  hash(path: string, algorithm?: FileHashAlgorithm): Promise<string>;
  /** find_files: absolute paths of files whose name matches any pattern. */
  find(
    dir: string,
    patterns: string[],
    options?: { recursive?: boolean; maxFiles?: number },
  ): Promise<string[]>;
  /** Calls a provider tool and returns its value; throws FileProviderCallError on `{error, error_type}`. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Connects to Ferry's file provider. Throws an Error naming the variables when they are missing:
 * Ferry sets them only for a server whose config entry has `"fileProvider": true`, when its
 * provider is on (`"fileProvider": { "enabled": true }` at the top of ferry.config.json).
 */
export async function connectFileProvider(options: ConnectFileProviderOptions = {}): Promise<FileProvider> {
  const env = options.env ?? process.env;
  const url = options.url ?? nonEmpty(env[FILE_PROVIDER_URL_ENV]);
  const token = options.token ?? nonEmpty(env[FILE_PROVIDER_TOKEN_ENV]);
  const socketPath =
    options.socketPath === undefined ? nonEmpty(env[FILE_PROVIDER_SOCKET_ENV]) : options.socketPath;
  if (url === undefined || token === undefined) {
    const missing = [
      ...(url === undefined ? [FILE_PROVIDER_URL_ENV] : []),
      ...(token === undefined ? [FILE_PROVIDER_TOKEN_ENV] : []),
    ];
    throw new Error(
      `Ferry's file provider is not available: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. ` +
        `Ferry sets ${FILE_PROVIDER_URL_ENV}, ${FILE_PROVIDER_TOKEN_ENV} (and ${FILE_PROVIDER_SOCKET_ENV} for a local server) ` +
        `only for a server whose entry in ferry.config.json has "fileProvider": true, ` +
        `and only when the provider is on ("fileProvider": { "enabled": true } at the top of the file).`,
    );
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: { token: async () => token },
    ...(socketPath ? { fetch: unixSocketFetch(socketPath) } : {}),
  });
  const client = new Client(options.clientInfo ?? { name: 'ferry-file-provider-client', version: '1.0.0' });
  await client.connect(transport);

  const call = (tool: string, args: Record<string, unknown>) => callProviderTool(client, tool, args, 'json');
  // The tools whose value is a string: a text-only answer is that string, never parsed as JSON.
  const callText = async (tool: string, args: Record<string, unknown>) =>
    asString(tool, await callProviderTool(client, tool, args, 'text'));
  return {
    client,
    call,
    readText: (path, { encoding, maxSize } = {}) =>
      callText('read_file', { file_path: path, ...defined({ encoding, max_size: maxSize }) }),
    readBinary: async (path, { maxSize } = {}) =>
      Buffer.from(
        await callText('read_file_binary', { file_path: path, ...defined({ max_size: maxSize }) }),
        'base64',
      ),
    list: async (dir, { pattern, recursive, maxFiles } = {}) =>
      asStrings(
        'list_directory',
        await call('list_directory', {
          directory_path: dir,
          ...defined({ pattern, recursive, max_files: maxFiles }),
        }),
      ),
    exists: async (path) => (await call('file_exists', { path })) === true,
    stats: async (path) => asStats(await call('get_file_stats', { path })),
    hash: (path, algorithm = 'md5') => callText('calculate_file_hash', { file_path: path, algorithm }),
    find: async (dir, patterns, { recursive, maxFiles } = {}) =>
      asStrings(
        'find_files',
        await call('find_files', {
          directory_path: dir,
          patterns,
          ...defined({ recursive, max_files: maxFiles }),
        }),
      ),
    close: () => client.close(),
  };
}

/**
 * One callback. Ferry's provider puts the value at `structuredContent.result` and an error at
 * `structuredContent {error, error_type}` with `isError`; for another provider that only sends
 * text, the text is the value: as it is for a tool whose value is a string (`text`), else parsed
 * as JSON when it is JSON.
 */
async function callProviderTool(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  value: 'text' | 'json',
): Promise<unknown> {
  const result = await client.callTool({ name: tool, arguments: args });
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find(
    (block) => block.type === 'text',
  )?.text;
  const error = structured ?? (result.isError ? parseJson(text) : undefined);
  if (isProviderError(error)) {
    const type = ERROR_TYPES.includes(error.error_type) ? error.error_type : 'FileProviderError';
    throw new FileProviderCallError(tool, type as FileProviderErrorType, error.error);
  }
  if (result.isError) throw new FileProviderCallError(tool, 'FileProviderError', text ?? `${tool} failed`);
  if (structured && 'result' in structured) return structured.result;
  if (text === undefined)
    throw new FileProviderCallError(tool, 'FileProviderError', `${tool} returned no value`);
  if (value === 'text') return text;
  const parsed = parseJson(text);
  return parsed === undefined ? text : parsed;
}

function isProviderError(value: unknown): value is { error: string; error_type: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { error?: unknown }).error === 'string' &&
    typeof (value as { error_type?: unknown }).error_type === 'string'
  );
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function asString(tool: string, value: unknown): string {
  if (typeof value === 'string') return value;
  throw new FileProviderCallError(
    tool,
    'FileProviderError',
    `${tool} returned ${typeof value}, not a string`,
  );
}

function asStrings(tool: string, value: unknown): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw new FileProviderCallError(
    tool,
    'FileProviderError',
    `${tool} returned something other than a list of paths`,
  );
}

function asStats(value: unknown): FileProviderStats {
  if (typeof value === 'object' && value !== null && typeof (value as { path?: unknown }).path === 'string') {
    return value as FileProviderStats;
  }
  throw new FileProviderCallError(
    'get_file_stats',
    'FileProviderError',
    'get_file_stats returned no stats object',
  );
}

/** The entries whose value is set: optional parameters are left out, not sent as null. */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
