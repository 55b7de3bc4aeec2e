// A last, defensive pass over everything a tool gives back before the model reads it. The host's
// answer is already redacted (packages/host/src/pipeline/redact-for-model.ts); this catches what
// a tool might still echo: data URIs, base64 payloads, signed links (`token=`), links to Ferry's
// file API, host directories and the user's /tmp/{username} workspace paths, and known secrets.
//
// Tool output is hostile input and may be tens of MiB: every step runs in linear time and none
// recurses per character (test/scrub-large.test.ts). Data URIs and base64 payloads are found by
// @ferry/contract's scans, and which runs are payloads (by content) is its rule, the host's too.
// URLs, bearer tokens and paths are found by expressions that match a bounded literal (or end in
// one greedy class nothing follows, so it never gives anything back); where each ends and what it
// holds is then checked in code, once per character. Regular expressions that did it all in one
// (`\bhttps?:\/\/[^\s"'<>]*[?&]token=…`) retried from every `http://` to the end of the text:
// quadratic on `http://http://…`; and `[A-Za-z0-9+/]{200,}` or `[…]{8,}` overflow V8's stack on a
// 10 MiB run.
import { redactDataUri, replaceDataUris, summarizeBase64Runs } from '@ferry/contract';

export interface ScrubOptions {
  /** Host directories (data dir, workspaces root): a path under one becomes its last segment. */
  hostPaths?: readonly string[];
  /** The user, whose /tmp/{username}/… paths become file names. */
  username?: string;
  /** Strings never to show (the model API key). */
  secrets?: readonly string[];
}

/** In a URL after its scheme: what makes it a signed link. */
const SIGNED_PARAM = /[?&](?:token|signature|sig|x-amz-signature)=/i;
/** In a URL after its scheme: what makes it a link to Ferry's file API. */
const FILE_API_PATH = /\/api\/files\//i;
/** A literal, then one greedy class nothing follows: linear as a regular expression. */
const TOKEN_PARAM = /([?&](?:token|signature|sig)=)[^&#\s"'<>]+/gi;
const MIN_BEARER_TOKEN = 8;

/**
 * `text` for the model. `label`: the name `text` is the value of (its JSON key), which can make a
 * base64 run a reference the model hands on (an upload id, a page token).
 */
export function scrubText(text: string, options: ScrubOptions = {}, label?: string): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = replaceDataUris(out, summarizeDataUri);
  out = omitLinks(out);
  out = out.replace(TOKEN_PARAM, '$1[redacted]');
  out = redactBearerTokens(out);
  out = summarizeBase64Runs(out, label);
  const dirs = [...(options.hostPaths ?? [])]
    .filter((dir) => dir.length > 1)
    .sort((a, b) => b.length - a.length);
  for (const dir of dirs) out = shortenPaths(out, withoutTrailingSlashes(dir));
  if (options.username) out = shortenPaths(out, `/tmp/${options.username}`);
  return out;
}

/** A deep copy with every string scrubbed; a string's key (an array's, for its items) labels it. */
export function scrubValue(value: unknown, options: ScrubOptions, depth = 0, label?: string): unknown {
  if (typeof value === 'string') return scrubText(value, options, label);
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, options, depth + 1, label));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      scrubText(key, options),
      scrubValue(item, options, depth + 1, key),
    ]),
  );
}

/**
 * `data:<type>;base64,<payload>` → `data:<type>;base64,[<n> bytes]`, as the host summarizes it.
 * One with an empty payload carries nothing and stays: that is also how the host's summary reads
 * (`data:image/png;base64,[12 bytes]`), which must not become `…,[0 bytes][12 bytes]`.
 */
function summarizeDataUri(uri: string): string {
  return uri.endsWith(',') ? uri : redactDataUri(uri);
}

/**
 * A URL — `http://` or `https://` (any case) after a non-word character, up to white space, a
 * quote or an angle bracket — whose rest has a signature parameter (`?token=`, `&sig=`, …) or
 * Ferry's file API path (`/api/files/`) becomes `[link omitted]`.
 */
function omitLinks(text: string): string {
  const scheme = /\bhttps?:\/\//gi;
  const stop = /[\s"'<>]/g;
  let out = '';
  let copied = 0;
  for (let match = scheme.exec(text); match !== null; match = scheme.exec(text)) {
    const from = match.index + match[0].length;
    stop.lastIndex = from;
    const end = stop.exec(text)?.index ?? text.length;
    const rest = text.slice(from, end);
    if (SIGNED_PARAM.test(rest) || FILE_API_PATH.test(rest)) {
      out += `${text.slice(copied, match.index)}[link omitted]`;
      copied = end;
    }
    // Any later `http://` before `end` is part of this URL, and its rest is part of this rest:
    // it holds a signature or the file API path only if this one does. Go on after the URL.
    scheme.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `Bearer <token>` (8+ token characters, then any `=`) → `Bearer [redacted]`. */
function redactBearerTokens(text: string): string {
  // `\s+` ends the expression: greedy, and nothing after it can make it give back.
  const head = /\bBearer\s+/g;
  let out = '';
  let copied = 0;
  for (let match = head.exec(text); match !== null; match = head.exec(text)) {
    const from = match.index + match[0].length;
    let end = from;
    while (end < text.length && isTokenChar(text.charCodeAt(end))) end++;
    // Too short: the search goes on from `from`; no other `Bearer` starts before it.
    if (end - from < MIN_BEARER_TOKEN) continue;
    while (end < text.length && text.charCodeAt(end) === 61) end++;
    out += `${text.slice(copied, match.index)}Bearer [redacted]`;
    copied = end;
    head.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `A-Z a-z 0-9 . _ ~ + / -`: what a bearer token is made of. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 46 ||
    code === 95 ||
    code === 126 ||
    code === 43 ||
    code === 47 ||
    code === 45
  );
}

/**
 * Each occurrence of `prefix`, with the rest of its path (`/…` up to white space, a quote or an
 * angle bracket), becomes the path's last segment: `/srv/ferry/data/users/1/report.csv` →
 * `report.csv`. A prefix of nothing (the root) is left alone.
 */
function shortenPaths(text: string, prefix: string): string {
  if (prefix === '' || !text.includes(prefix)) return text;
  const stop = /[\s"'<>]/g;
  let out = '';
  let copied = 0;
  for (let at = text.indexOf(prefix); at !== -1; at = text.indexOf(prefix, copied)) {
    let end = at + prefix.length;
    if (text.charCodeAt(end) === 47) {
      stop.lastIndex = end;
      end = stop.exec(text)?.index ?? text.length;
    }
    out += text.slice(copied, at) + lastSegment(text.slice(at, end));
    copied = end;
  }
  return out + text.slice(copied);
}

/** The last non-empty `/`-separated segment ('' if none). */
function lastSegment(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(path.lastIndexOf('/', end - 1) + 1, end);
}

function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(0, end);
}
