// What a tool echoes back must not smuggle file plumbing into the model's context (DESIGN step 6:
// "never base64"): the paths and signed URLs Ferry handed over become the file names again, data
// URIs and base64 payloads are summarized, workspace prefixes are dropped and `token=` query
// values are blanked. Tools' own ordinary URLs and text stay as they are.
import { redactDataUri, replaceDataUris, summarizeBase64Runs } from '@ferry/contract';
import type { Workspace } from '../workspace/workspaces.js';
import type { HandedOver } from './prepare-arguments.js';

export interface Redaction {
  /** Exact strings (a handed-over path or URL) → what the model sees instead (the file name). */
  references: ReadonlyMap<string, string>;
  /** Directories whose paths become workspace-relative (host and tool views of the workspace). */
  workspaceDirs: readonly string[];
}

export const NO_REDACTION: Redaction = { references: new Map(), workspaceDirs: [] };

/** Handed-over paths and URLs map back to file names; both views of the workspace are hidden. */
export function redactionFor(workspace: Workspace | undefined, handedOver: HandedOver[]): Redaction {
  const references = new Map<string, string>();
  for (const entry of handedOver) if (entry.reference) references.set(entry.reference, entry.name);
  const workspaceDirs = workspace ? [...new Set([workspace.hostDir, workspace.toolDir])] : [];
  return { references, workspaceDirs };
}

// Tool output is hostile input and may be tens of MiB: every pattern here runs in linear time.
// Data URIs and base64 payloads are found by linear scans (@ferry/contract's scan-encoded.ts, the
// rule the agent's scrub uses too), not by regular expressions: V8 overflows its stack matching
// `[A-Za-z0-9+/]{512,}` against a 10 MiB run, and `data:[^,…]*;base64,` backtracks quadratically
// over text like `data:data:data:…`.
// TOKEN_PARAM is a literal followed by one greedy class that nothing after it can make give back:
// linear as a regular expression.
const TOKEN_PARAM = /([?&]token=)[^&#\s"'<>]+/gi;
/** Deeper values are not walked (results are refused past MAX_RESULT_DEPTH at intake anyway). */
const MAX_DEPTH = 64;
const TOO_DEEP = '[nested too deep]';

/**
 * `text` for the model. `label`: the name `text` is the value of (its JSON key), which can make a
 * base64 run a reference the model hands on (an upload id, a page token).
 */
export function redactString(text: string, redaction: Redaction, label?: string): string {
  let out = text;
  // Longest first, so a URL is replaced before a path it happens to contain.
  const references = [...redaction.references].sort((a, b) => b[0].length - a[0].length);
  for (const [reference, name] of references) {
    if (reference !== '' && out.includes(reference)) out = out.split(reference).join(name);
  }
  for (const dir of redaction.workspaceDirs) {
    if (dir !== '' && out.includes(`${dir}/`)) out = out.split(`${dir}/`).join('');
  }
  // `data:<type>;base64,<payload>` → `data:<type>;base64,[<n> bytes]`; base64 payloads (by
  // content, at any length from 16 characters) → `[base64, <n> characters omitted]`.
  return summarizeBase64Runs(replaceDataUris(out, redactDataUri), label).replace(TOKEN_PARAM, '$1[redacted]');
}

/**
 * A redacted deep copy of JSON-like data; strings are redacted, object keys are kept. A string's
 * key (an array's, for its items) labels it.
 */
export function redactValue(value: unknown, redaction: Redaction, depth = 0, label?: string): unknown {
  if (typeof value === 'string') return redactString(value, redaction, label);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redaction, depth + 1, label));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, redaction, depth + 1, key)]),
  );
}
