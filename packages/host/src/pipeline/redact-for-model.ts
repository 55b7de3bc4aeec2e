// What a tool echoes back must not smuggle file plumbing into the model's context (DESIGN step 6:
// "never base64"): the paths and signed URLs Ferry handed over become the file names again, data
// URIs and long base64 runs are summarized, workspace prefixes are dropped and `token=` query
// values are blanked. Tools' own ordinary URLs and text stay as they are.
import { redactDataUri } from '@ferry/contract';

export interface Redaction {
  /** Exact strings (a handed-over path or URL) → what the model sees instead (the file name). */
  references: ReadonlyMap<string, string>;
  /** Directories whose paths become workspace-relative (host and tool views of the workspace). */
  workspaceDirs: readonly string[];
}

export const NO_REDACTION: Redaction = { references: new Map(), workspaceDirs: [] };

// Tool output is hostile input and may be tens of MiB: every pattern here runs in linear time.
// Data URIs and base64 runs are found by the scans below, not by regular expressions: V8 overflows
// its stack matching `[A-Za-z0-9+/]{512,}` against a 10 MiB run, and `data:[^,…]*;base64,`
// backtracks quadratically over text like `data:data:data:…`. TOKEN_PARAM is a literal followed by
// one greedy class that nothing after it can make give back: linear as a regular expression.
const TOKEN_PARAM = /([?&]token=)[^&#\s"'<>]+/gi;
const DATA_SCHEME = /data:/gi;
const MIN_BASE64_RUN = 512;
/** Deeper values are not walked (results are refused past MAX_RESULT_DEPTH at intake anyway). */
const MAX_DEPTH = 64;
const TOO_DEEP = '[nested too deep]';

export function redactString(text: string, redaction: Redaction): string {
  let out = text;
  // Longest first, so a URL is replaced before a path it happens to contain.
  const references = [...redaction.references].sort((a, b) => b[0].length - a[0].length);
  for (const [reference, name] of references) {
    if (reference !== '' && out.includes(reference)) out = out.split(reference).join(name);
  }
  for (const dir of redaction.workspaceDirs) {
    if (dir !== '' && out.includes(`${dir}/`)) out = out.split(`${dir}/`).join('');
  }
  return redactBase64Runs(redactDataUris(out)).replace(TOKEN_PARAM, '$1[redacted]');
}

/** Characters that end a data URI's media type (as `[^,\s"'<>]` did). */
function endsMediaType(code: number): boolean {
  return code === 44 || code === 34 || code === 39 || code === 60 || code === 62 || isSpace(code);
}

const SPACE = /\s/;

function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  return code >= 0xa0 && SPACE.test(String.fromCharCode(code));
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

/** `data:<type>;base64,<payload>` → `data:<type>;base64,[<n> bytes]`, in one pass. */
function redactDataUris(text: string): string {
  if (!/data:/i.test(text)) return text;
  let out = '';
  let copied = 0;
  DATA_SCHEME.lastIndex = 0;
  for (let match = DATA_SCHEME.exec(text); match !== null; match = DATA_SCHEME.exec(text)) {
    const start = match.index;
    let comma = start + 5;
    while (comma < text.length && !endsMediaType(text.charCodeAt(comma))) comma++;
    // No `;base64,` right before the first comma: no data URI starts anywhere in this stretch.
    if (
      text.charCodeAt(comma) !== 44 ||
      text.slice(Math.max(start + 5, comma - 7), comma).toLowerCase() !== ';base64'
    ) {
      DATA_SCHEME.lastIndex = Math.max(comma, start + 1);
      continue;
    }
    let end = comma + 1;
    while (end < text.length && isBase64Char(text.charCodeAt(end), true)) end++;
    out += text.slice(copied, start) + redactDataUri(text.slice(start, end));
    copied = end;
    DATA_SCHEME.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Runs of 512+ base64 characters (plus up to two `=`) become `[base64, <n> characters omitted]`
 * when they look encoded: encoded bytes mix upper case, lower case and digits throughout; a long
 * run of one kind (a DNA sequence, a hex digest, a word) is ordinary data and stays.
 */
function redactBase64Runs(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    if (!isBase64Char(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let lower = false;
    let upper = false;
    let digit = false;
    for (; i < text.length && isBase64Char(text.charCodeAt(i)); i++) {
      const code = text.charCodeAt(i);
      lower ||= code >= 97 && code <= 122;
      upper ||= code >= 65 && code <= 90;
      digit ||= code >= 48 && code <= 57;
    }
    if (i - start < MIN_BASE64_RUN) continue;
    let end = i;
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
    if (lower && upper && digit) {
      out += `${text.slice(copied, start)}[base64, ${end - start} characters omitted]`;
      copied = end;
    }
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A redacted deep copy of JSON-like data; strings are redacted, object keys are kept. */
export function redactValue(value: unknown, redaction: Redaction, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value, redaction);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redaction, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, redaction, depth + 1)]),
  );
}
