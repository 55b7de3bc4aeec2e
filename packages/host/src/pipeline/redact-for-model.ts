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

const DATA_URI = /data:[^,\s"'<>]*;base64,[A-Za-z0-9+/=_-]*/gi;
const LONG_BASE64 = /[A-Za-z0-9+/]{512,}={0,2}/g;
const TOKEN_PARAM = /([?&]token=)[^&#\s"'<>]+/gi;
const MAX_DEPTH = 64;

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
  return out
    .replace(DATA_URI, (uri) => redactDataUri(uri))
    .replace(LONG_BASE64, (run) => (looksEncoded(run) ? `[base64, ${run.length} characters omitted]` : run))
    .replace(TOKEN_PARAM, '$1[redacted]');
}

/**
 * Encoded bytes mix upper case, lower case and digits throughout; a long run of one kind (a DNA
 * sequence, a hex digest, a word) is ordinary data and stays.
 */
function looksEncoded(run: string): boolean {
  return /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
}

/** A redacted deep copy of JSON-like data; strings are redacted, object keys are kept. */
export function redactValue(value: unknown, redaction: Redaction, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value, redaction);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redaction, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, redaction, depth + 1)]),
  );
}
