// Parses a path a provider caller names, in the user's provider view: `/tmp/{username}` and below
// is the workspace, `/tmp/{username}/my_files/...` the read-only virtual My Files tree, anything
// else does not exist for the provider. Purely lexical: symbolic links are the resolver's job
// (provider-path-resolve.ts), which re-checks what it reaches with `checkProviderPolicy`.
// A refusal never echoes a path that may lie outside the user's view.
import { collapsePosixPath, type FileSource } from '@ferry/contract';
import type { FileProviderSettings, ProviderError } from './provider-types.js';

export const MY_FILES_DIR_NAME = 'my_files';
export const MY_FILES_SOURCES: readonly FileSource[] = ['uploaded', 'generated', 'deferred'];

export type ProviderPath =
  /** The workspace root (`relative` '') or a path below it; `relative` has no leading slash. */
  | { kind: 'workspace'; toolPath: string; relative: string }
  | { kind: 'my-files-root'; toolPath: string; source?: undefined }
  | { kind: 'my-files-dir'; toolPath: string; source: FileSource }
  | { kind: 'my-files-file'; toolPath: string; source: FileSource; name: string }
  /** Under a My Files directory but not one of its entries (`.../uploaded/a/b`, `.../my_files/x`). */
  | { kind: 'my-files-missing'; toolPath: string }
  | { kind: 'refused'; error: ProviderError };

/** What a path parse needs from the scope. */
export interface ProviderPathContext {
  readonly username: string;
  readonly settings: Pick<FileProviderSettings, 'allowedPaths' | 'blockedPaths'>;
}

const OUTSIDE_MESSAGE = 'Path is outside the files this provider serves';

/** The user's root in the provider view: the path tools see as their workspace. */
export function providerRoot(username: string): string {
  return `/tmp/${username}`;
}

export function parseProviderPath(context: ProviderPathContext, raw: unknown): ProviderPath {
  const syntax = checkSyntax(raw);
  if (syntax !== undefined) return refused(`Path refused: ${syntax}`);
  // No `..` is left (checkSyntax), so collapsing only drops empty and `.` segments.
  const toolPath = collapsePosixPath(raw as string);
  const root = providerRoot(context.username);
  if (!isWithin(toolPath, root)) return refused(OUTSIDE_MESSAGE);
  const policy = checkProviderPolicy(context, toolPath);
  if (policy !== undefined) return { kind: 'refused', error: policy };
  return classify(root, toolPath);
}

/**
 * allowedPaths / blockedPaths for a normalized tool path inside the user's root (blocked wins).
 * Also applied to every path a symbolic link leads to, and to each entry a listing returns.
 */
export function checkProviderPolicy(
  context: ProviderPathContext,
  toolPath: string,
): ProviderError | undefined {
  const { allowedPaths, blockedPaths } = context.settings;
  const fill = (prefix: string) => collapsePosixPath(prefix.replaceAll('{{user}}', context.username));
  if (blockedPaths.some((prefix) => isWithin(toolPath, fill(prefix)))) {
    return permission(`Permission denied: ${toolPath} is blocked for the file provider`);
  }
  if (allowedPaths.length > 0 && !allowedPaths.some((prefix) => isWithin(toolPath, fill(prefix)))) {
    return permission(`Permission denied: ${toolPath} is not in the file provider's allowed paths`);
  }
  return undefined;
}

/** By path components: `/tmp/alice2` is not within `/tmp/alice`; a path is within itself. */
export function isWithin(path: string, dir: string): boolean {
  if (dir === '/') return path.startsWith('/');
  return path === dir || path.startsWith(`${dir}/`);
}

function classify(root: string, toolPath: string): ProviderPath {
  const relative = toolPath === root ? '' : toolPath.slice(root.length + 1);
  const parts = relative === '' ? [] : relative.split('/');
  if (parts[0] !== MY_FILES_DIR_NAME) return { kind: 'workspace', toolPath, relative };
  if (parts.length === 1) return { kind: 'my-files-root', toolPath };
  const source = MY_FILES_SOURCES.find((candidate) => candidate === parts[1]);
  if (source === undefined) return { kind: 'my-files-missing', toolPath };
  if (parts.length === 2) return { kind: 'my-files-dir', toolPath, source };
  if (parts.length === 3) return { kind: 'my-files-file', toolPath, source, name: parts[2] as string };
  return { kind: 'my-files-missing', toolPath };
}

/** Why a raw path is refused before anything else looks at it; undefined when it is acceptable. */
function checkSyntax(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw === '') return 'not a path';
  if (raw.includes('\0')) return 'contains a NUL byte';
  if (raw.includes('\\')) return 'contains a backslash';
  if (!raw.startsWith('/')) return 'not an absolute path';
  const encoded = hiddenByEncoding(raw);
  if (encoded !== undefined) return encoded;
  for (const segment of raw.split('/')) {
    if (segment === '..') return "contains a '..' segment";
    // Home-directory shorthand (`~`, `~root`) is refused; a `~` inside a name (`notes.txt~`) is not.
    if (segment.startsWith('~')) return "contains a '~' segment";
  }
  return undefined;
}

const HIDDEN_BYTES = new Set([0x2e, 0x2f, 0x5c, 0x00]);
const MAX_DECODE_ROUNDS = 4;

/**
 * Percent-encodings that decode, at any depth (`%2e`, `%252e`, `%25252e`), to `.`, `/`, `\` or
 * NUL: a caller (or a server that decodes once more) could turn them into traversal.
 */
function hiddenByEncoding(raw: string): string | undefined {
  let text = raw;
  for (let round = 0; round <= MAX_DECODE_ROUNDS; round++) {
    const escapes = [...text.matchAll(/%([0-9a-fA-F]{2})/g)];
    if (escapes.length === 0) return undefined;
    if (escapes.some((match) => HIDDEN_BYTES.has(Number.parseInt(match[1] as string, 16)))) {
      return 'contains a percent-encoded path character';
    }
    text = text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
  return 'contains nested percent-encodings';
}

function refused(message: string): ProviderPath {
  return { kind: 'refused', error: permission(message) };
}

function permission(message: string): ProviderError {
  return { error: message, error_type: 'PermissionError' };
}
