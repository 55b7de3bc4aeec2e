// The `fileProvider` section of ferry.config, in the spec's own words (its example configuration:
// enabled, max_file_size, timeout_seconds, allowed_paths, blocked_paths, enable_optional_tools)
// plus Ferry's two (max_list_files, token_ttl_seconds). Unknown keys are errors, so a typo fails at
// startup instead of leaving a limit at its default. The result is FileProviderSettings (camelCase,
// defaults filled, frozen).
import { hasOnlyUserPlaceholders } from '@ferry/contract';
import { z } from 'zod';
import type { FileProviderSettings } from './provider-types.js';

const MIB = 1024 * 1024;
/** A read's answer is one string in one JSON-RPC message (base64 adds a third): V8 holds ~512 MiB. */
const MAX_FILE_SIZE_CEILING = 256 * MIB;
/** Longest a provider token may live (the tokens' own ceiling). */
const MAX_TOKEN_TTL_SECONDS = 24 * 60 * 60;

const whole = (what: string, max: number) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .positive(`${what} must be greater than 0`)
    .max(max, `${what} must be at most ${max}`);

/**
 * A path prefix as tools see it (`/tmp/{{user}}/projects`): absolute, no `..`, no NUL, only the
 * `{{user}}` placeholder. Normalized (`//`, `/./`, a trailing `/`), since prefixes are compared
 * by path components.
 */
const providerPath = z
  .string()
  .refine((p) => p.startsWith('/'), 'paths must be absolute (start with /)')
  .refine((p) => !p.includes('\0'), 'paths must not contain NUL')
  .refine((p) => !p.split('/').includes('..'), 'paths must not contain ".." segments')
  .refine(hasOnlyUserPlaceholders, 'the only placeholder allowed in a path is {{user}}')
  .transform(
    (p) =>
      `/${p
        .split('/')
        .filter((part) => part !== '' && part !== '.')
        .join('/')}`,
  );

export const fileProviderSettingsSchema = z
  .strictObject({
    /** Off: no endpoint, no socket, no variables for any server. @default false */
    enabled: z.boolean().default(false),
    /** Largest file read_file/read_file_binary return, in bytes. @default 10485760 (10 MiB) */
    max_file_size: whole('max_file_size', MAX_FILE_SIZE_CEILING).default(10 * MIB),
    /** Longest one callback may take. @default 30 */
    timeout_seconds: z
      .number()
      .finite()
      .positive('timeout_seconds must be greater than 0')
      .max(3600, 'timeout_seconds must be at most 3600')
      .default(30),
    /** Path prefixes a callback may reach; empty: everything the user has. @default [] */
    allowed_paths: z.array(providerPath).max(100, 'at most 100 allowed_paths').default([]),
    /** Path prefixes refused even inside allowed_paths (blocked wins). @default [] */
    blocked_paths: z.array(providerPath).max(100, 'at most 100 blocked_paths').default([]),
    /** Offer calculate_file_hash and find_files. @default true */
    enable_optional_tools: z.boolean().default(true),
    /** Hard ceiling on the paths one listing returns. @default 10000 */
    max_list_files: whole('max_list_files', 1_000_000).default(10_000),
    /** Lifetime of a token Ferry mints for a server connection or a user. @default 3600 */
    token_ttl_seconds: whole('token_ttl_seconds', MAX_TOKEN_TTL_SECONDS).default(3600),
  })
  .transform(
    (s): FileProviderSettings =>
      Object.freeze({
        enabled: s.enabled,
        maxFileSize: s.max_file_size,
        timeoutSeconds: s.timeout_seconds,
        allowedPaths: Object.freeze([...s.allowed_paths]),
        blockedPaths: Object.freeze([...s.blocked_paths]),
        enableOptionalTools: s.enable_optional_tools,
        maxListFiles: s.max_list_files,
        tokenTtlSeconds: s.token_ttl_seconds,
      }),
  );

/** What the `fileProvider` section may contain. */
export type FileProviderSettingsInput = z.input<typeof fileProviderSettingsSchema>;

/**
 * The settings from a `fileProvider` section (undefined: all defaults, provider off). Throws an
 * Error listing every problem, each with its key (`fileProvider.allowed_paths.0: …`).
 */
export function parseFileProviderSettings(input: unknown): FileProviderSettings {
  const result = fileProviderSettingsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    return keys
      .map((key) => {
        const path = ['fileProvider', ...issue.path, ...(key === undefined ? [] : [key])].join('.');
        return key === undefined ? `${path}: ${issue.message}` : `${path}: unknown setting`;
      })
      .join('\n  ');
  });
  throw new Error(`[ferry/host] invalid fileProvider settings:\n  ${lines.join('\n  ')}`);
}
