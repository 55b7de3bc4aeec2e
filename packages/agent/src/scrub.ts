// A last, defensive pass over everything a tool gives back before the model reads it. The host's
// answer is already redacted (packages/host/src/pipeline/redact-for-model.ts); this catches what
// a tool might still echo: data URIs, long base64 runs, signed links (`token=`), links to Ferry's
// file API, host directories and the user's /tmp/{username} workspace paths, and known secrets.

export interface ScrubOptions {
  /** Host directories (data dir, workspaces root): a path under one becomes its last segment. */
  hostPaths?: readonly string[];
  /** The user, whose /tmp/{username}/… paths become file names. */
  username?: string;
  /** Strings never to show (the model API key). */
  secrets?: readonly string[];
}

const DATA_URI = /data:[a-z0-9.+/-]*(?:;[a-z0-9.+=_-]*)*;base64,[A-Za-z0-9+/=_-]*/gi;
const LONG_BASE64 = /[A-Za-z0-9+/]{200,}={0,2}/g;
const URL_WITH_TOKEN = /\bhttps?:\/\/[^\s"'<>]*[?&](?:token|signature|sig|x-amz-signature)=[^\s"'<>]*/gi;
const FILE_API_URL = /\bhttps?:\/\/[^\s"'<>]*\/api\/files\/[^\s"'<>]*/gi;
const TOKEN_PARAM = /([?&](?:token|signature|sig)=)[^&#\s"'<>]+/gi;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/g;

export function scrubText(text: string, options: ScrubOptions = {}): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out
    .replace(DATA_URI, '[data URI omitted]')
    .replace(URL_WITH_TOKEN, '[link omitted]')
    .replace(FILE_API_URL, '[link omitted]')
    .replace(TOKEN_PARAM, '$1[redacted]')
    .replace(BEARER, 'Bearer [redacted]')
    .replace(LONG_BASE64, (run) =>
      /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run)
        ? `[base64, ${run.length} characters omitted]`
        : run,
    );
  const dirs = [...(options.hostPaths ?? [])]
    .filter((dir) => dir.length > 1)
    .sort((a, b) => b.length - a.length);
  for (const dir of dirs) {
    const trimmed = dir.replace(/\/+$/, '');
    out = out.replace(new RegExp(`${escapeRegExp(trimmed)}(?:/[^\\s"'<>]*)?`, 'g'), (path) =>
      lastSegment(path),
    );
  }
  if (options.username) {
    out = out.replace(new RegExp(`/tmp/${escapeRegExp(options.username)}(?:/[^\\s"'<>]*)?`, 'g'), (path) =>
      lastSegment(path),
    );
  }
  return out;
}

/** A deep copy with every string scrubbed. */
export function scrubValue(value: unknown, options: ScrubOptions, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, options);
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, options, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      scrubText(key, options),
      scrubValue(item, options, depth + 1),
    ]),
  );
}

function lastSegment(path: string): string {
  const parts = path.split('/').filter((part) => part !== '');
  return parts.length > 0 ? (parts[parts.length - 1] as string) : '';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
