// The client file-provider (../shared/spec/client-file-provider-callbacks.md, "client callback
// tools" 1.0.0): an MCP server inside Ferry that a tool server calls back to read the user's files
// without holding them. These are the types every part of it shares: the operations
// (provider-operations.ts), the MCP surfaces (standard and compatibility), the tokens, the
// sockets, and the host that routes each callback to the calling tool's call.
import type { ProviderError, ProviderErrorType, ProviderFileStats } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';

/** The specification version Ferry implements, declared in the provider's server metadata. */
export const FILE_PROVIDER_SPEC_VERSION = '1.0.0';
/** The provider's MCP server name. */
export const FILE_PROVIDER_SERVER_NAME = 'ferry-file-provider';

export const REQUIRED_PROVIDER_TOOLS = [
  'read_file',
  'read_file_binary',
  'list_directory',
  'file_exists',
  'get_file_stats',
] as const;
export const OPTIONAL_PROVIDER_TOOLS = ['calculate_file_hash', 'find_files'] as const;
export const PROVIDER_TOOLS = [...REQUIRED_PROVIDER_TOOLS, ...OPTIONAL_PROVIDER_TOOLS] as const;
export type ProviderToolName = (typeof PROVIDER_TOOLS)[number];

// The spec's value shapes are the contract's: server-kit's client reads the same ones.
export {
  PROVIDER_ERROR_TYPES,
  type ProviderError,
  type ProviderErrorType,
  type ProviderFileStats,
} from '@ferry/contract';

/** What a tool answers: the spec's value (a string, a list of paths, a boolean, stats) or its error. */
export type ProviderValue = string | boolean | string[] | ProviderFileStats;

export type ProviderResult = { ok: true; value: ProviderValue } | { ok: false; error: ProviderError };

/** The provider's settings (the `fileProvider` config section, defaults filled). */
export interface FileProviderSettings {
  /** Off: no endpoint, no socket, no variables for any server. @default false */
  readonly enabled: boolean;
  /** Largest file read_file/read_file_binary return; a smaller max_size in a call wins. @default 10 MiB */
  readonly maxFileSize: number;
  /** Longest one callback may take. @default 30 */
  readonly timeoutSeconds: number;
  /**
   * Path prefixes (as tools see them, `{{user}}` allowed) a callback may reach; empty: everything
   * the user has (workspace and My Files). Compared by path components.
   */
  readonly allowedPaths: readonly string[];
  /** Path prefixes refused even inside allowedPaths (blocked wins). */
  readonly blockedPaths: readonly string[];
  /** Offer calculate_file_hash and find_files. @default true */
  readonly enableOptionalTools: boolean;
  /** Hard ceiling on the paths one listing returns, whatever max_files asks. @default 10000 */
  readonly maxListFiles: number;
  /** Lifetime of a token Ferry mints for a server connection or a user. @default 3600 */
  readonly tokenTtlSeconds: number;
}

/** Whose files a callback reads, and with what limits. */
export interface ProviderScope {
  readonly username: string;
  /** FileStore owner id of the user. */
  readonly owner: string;
  /** The host directory tools see as /tmp/{username}. */
  readonly workspaceHostDir: string;
  readonly files: FileStore;
  readonly settings: FileProviderSettings;
}

/** One callback, as the host reports it on the calling tool's call and in the audit log. */
export interface ProviderCallbackEvent {
  username: string;
  /** The server whose connection the token was minted for; absent for a token the user minted. */
  server?: string;
  grantId: string;
  tool: ProviderToolName | string;
  /** The path the callback named (as the caller gave it, at most 512 characters). Never content. */
  path?: string;
  ok: boolean;
  errorType?: ProviderErrorType;
  /** Bytes of file content read (read_file, read_file_binary, calculate_file_hash). */
  bytes?: number;
  /** Entries returned (list_directory, find_files). */
  count?: number;
  durationMs: number;
}
