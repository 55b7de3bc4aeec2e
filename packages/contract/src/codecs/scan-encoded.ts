// Finding encoded payloads (base64 data URIs, base64 runs) in text a tool gave back, so the
// redactions for the model (the host's, packages/host/src/pipeline/redact-for-model.ts, and the
// agent's last pass, packages/agent/src/scrub.ts) can summarize them. Data URIs go at any length;
// which runs are payloads is decided by their content (encoded-payload.ts), in this one place for
// both. Tool output is hostile input and may be tens of MiB, so both are linear scans rather than
// regular expressions: V8 overflows its stack matching `[A-Za-z0-9+/]{512,}` against a 10 MiB run,
// and `data:[^,…]*;base64,` backtracks quadratically over text like `data:data:data:…`.
import { isEncodedPayload, MAX_TEXT_RUN, MIN_PAYLOAD_RUN } from './encoded-payload.js';

const SPACE = /\s/;
/** A JWT's part longer than this is not left alone (real tokens are a few KiB at most). */
const MAX_JWT_PART = 8192;
/** The last word of a name for a value the model hands on (see labelsReference). */
const REFERENCE_WORDS = ['id', 'ids', 'token', 'cursor', 'marker', 'etag', 'hash', 'digest', 'checksum'];

/**
 * Replaces each base64 data URI in `text` — `data:`, a media type of any characters but
 * `,` `"` `'` `<` `>` and white space, ending in `;base64` (any case), `,`, then a payload of
 * `A-Z a-z 0-9 + / = _ -` (possibly empty) — with `replace(uri)`. One pass, linear in `text`.
 */
export function replaceDataUris(text: string, replace: (uri: string) => string): string {
  if (!/data:/i.test(text)) return text;
  // A fresh expression per call: `replace` may itself scan, and lastIndex is state.
  const scheme = /data:/gi;
  let out = '';
  let copied = 0;
  for (let match = scheme.exec(text); match !== null; match = scheme.exec(text)) {
    const start = match.index;
    let comma = start + 5;
    while (comma < text.length && !endsMediaType(text.charCodeAt(comma))) comma++;
    // No `;base64,` right before the first comma: no data URI starts anywhere in this stretch
    // (every `data:` in it runs to the same comma).
    if (
      text.charCodeAt(comma) !== 44 ||
      text.slice(Math.max(start + 5, comma - 7), comma).toLowerCase() !== ';base64'
    ) {
      scheme.lastIndex = Math.max(comma, start + 1);
      continue;
    }
    let end = comma + 1;
    while (end < text.length && isBase64Char(text.charCodeAt(end), true)) end++;
    out += text.slice(copied, start) + replace(text.slice(start, end));
    copied = end;
    scheme.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Replaces each run of base64 characters (`A-Z a-z 0-9 + / - _`, plus up to two `=` after it) that
 * is an encoded payload (isEncodedPayload) with `[base64, <n> characters omitted]`. Runs are
 * maximal: a longer run is never split. One pass, linear in `text`. What the scan sees around a
 * run, which the run alone does not show:
 * - References: a run in a URL (from `://` up to white space, a quote, an angle bracket or a
 *   backtick), or the value of a name ending in id, token, cursor, marker, etag, hash, digest or
 *   checksum (`"UploadId": "…"`, `NextToken=…`, `<ETag>…`, or `label`, the JSON key `text` is
 *   the value of). The model hands these on to the next call or link, whatever they hold.
 * - JWTs: a run starting `eyJ` (base64url of `{"`) followed by `.` and another run, and each run
 *   joined to it by single dots (`header.claims.signature`, JWE's five parts) stay whole. Header
 *   and claims are text the model may read (who, until when, which scopes); the signature is
 *   binary, but a token cut in pieces is worth nothing. Base64 never holds a dot, so no payload
 *   looks like this.
 */
export function summarizeBase64Runs(text: string, label?: string): string {
  return replaceBase64Runs(text, (run) => `[base64, ${run.length} characters omitted]`, label);
}

/** As summarizeBase64Runs, each payload run (with its `=`) becoming `replace(run)`. */
export function replaceBase64Runs(text: string, replace: (run: string) => string, label?: string): string {
  const labeled = label !== undefined && namesReference(label, 0, label.length);
  let out = '';
  let copied = 0;
  let inUrl = false;
  /** Where the next part of a JWT would start, after the dot that ended the last one (-1: none). */
  let jwtNext = -1;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (!isRunChar(code)) {
      if (code === 58 && text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47) inUrl = true;
      else if (endsUrl(code)) inUrl = false;
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isRunChar(text.charCodeAt(i))) i++;
    let end = i;
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
    const dotted = end === i && text.charCodeAt(i) === 46 && isRunChar(text.charCodeAt(i + 1));
    const jwt =
      i - start <= MAX_JWT_PART &&
      (start === jwtNext || (dotted && i - start > 3 && text.startsWith('eyJ', start)));
    jwtNext = jwt && dotted ? i + 1 : -1;
    if (!jwt) {
      const reference =
        inUrl ||
        (i - start >= MIN_PAYLOAD_RUN &&
          i - start < MAX_TEXT_RUN &&
          ((labeled && start === 0) || labelsReference(text, start)));
      if (isEncodedPayload(text, start, i, reference)) {
        out += text.slice(copied, start) + replace(text.slice(start, end));
        copied = end;
      }
    }
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Whether the text right before `start` names what follows as a reference: a name (letters,
 * digits, `_`, `-`; up to 64 characters), then up to four of `"' :=>` with at least one `:`, `=`
 * or `>`. Bounded look-back: constant work per run.
 */
function labelsReference(text: string, start: number): boolean {
  let nameEnd = start;
  let assigns = false;
  while (nameEnd > 0 && start - nameEnd < 4) {
    const code = text.charCodeAt(nameEnd - 1);
    if (code === 58 || code === 61 || code === 62) assigns = true;
    else if (code !== 34 && code !== 39 && code !== 32) break;
    nameEnd--;
  }
  if (!assigns) return false;
  let nameStart = nameEnd;
  while (nameStart > 0 && nameEnd - nameStart < 64 && isNameChar(text.charCodeAt(nameStart - 1))) nameStart--;
  return namesReference(text, nameStart, nameEnd);
}

/**
 * Whether `text[start, end)`, a name, ends in one of REFERENCE_WORDS as a word of its own: the
 * whole name, or after `_`, `-`, a digit, or as a capitalized word of camelCase (`UploadId`,
 * `next_page_token`, `ETag`; not `paid` or `squid`).
 */
function namesReference(text: string, start: number, end: number): boolean {
  const name = text.slice(start, end);
  const lower = name.toLowerCase();
  return REFERENCE_WORDS.some((word) => {
    const at = name.length - word.length;
    if (at < 0 || !lower.endsWith(word)) return false;
    if (at === 0) return true;
    const before = name.charCodeAt(at - 1);
    const first = name.charCodeAt(at);
    return (
      before === 95 || before === 45 || (before >= 48 && before <= 57) || (isUpper(first) && !isUpper(before))
    );
  });
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isNameChar(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}

/** Characters that end a data URI's media type (as `[^,\s"'<>]` did). */
function endsMediaType(code: number): boolean {
  return code === 44 || code === 34 || code === 39 || code === 60 || code === 62 || isSpace(code);
}

/** What `\s` matches. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  return code >= 0xa0 && SPACE.test(String.fromCharCode(code));
}

/** What ends a URL in text: white space, a quote, an angle bracket or a backtick. */
function endsUrl(code: number): boolean {
  return code === 34 || code === 39 || code === 60 || code === 62 || code === 96 || isSpace(code);
}

/** `A-Z a-z 0-9 + / - _`: a run of either base64 alphabet. */
function isRunChar(code: number): boolean {
  return isBase64Char(code) || code === 45 || code === 95;
}

/** `A-Z a-z 0-9 + /`, and with `urlSafe` also `= _ -` (what may follow `;base64,`). */
function isBase64Char(code: number, urlSafe = false): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    (urlSafe && (code === 61 || code === 95 || code === 45))
  );
}
