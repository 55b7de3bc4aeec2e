// Host paths (the data directory, the workspaces) must not reach API clients: they tell an
// attacker where things live and, unsandboxed, tools see and echo them. Messages from packages
// (a server's stderr, a tool's progress text) may carry them, so every outgoing string that did
// not come from the API's own schemas passes through here.

import { MAX_RESULT_DEPTH } from '@ferry/contract';

export type PathRedactor = <T>(value: T) => T;

/**
 * Deepest level of objects and arrays walked (`value` itself is level 1); values deeper pass
 * unchanged. A tool's result may nest MAX_RESULT_DEPTH levels (deeper ones are refused at intake)
 * and reaches clients a few levels down: in a call's response (`forModel.results`), in a call
 * event or an agent event around one. ENVELOPE_LEVELS covers those wrappers with room to spare.
 */
const ENVELOPE_LEVELS = 8;
export const MAX_REDACTED_DEPTH = MAX_RESULT_DEPTH + ENVELOPE_LEVELS;

/** Replaces each root (and anything below it) with its label, e.g. `<workspace>/alice/x.csv`. */
export function createPathRedactor(roots: Readonly<Record<string, string>>): PathRedactor {
  const entries = Object.entries(roots)
    .filter(([, root]) => root.length > 1)
    .sort(([, a], [, b]) => b.length - a.length);
  if (entries.length === 0) return (value) => value;
  const redactString = (text: string) => {
    let out = text;
    for (const [label, root] of entries) if (out.includes(root)) out = out.split(root).join(`<${label}>`);
    return out;
  };
  const walk = (value: unknown, level: number): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (level > MAX_REDACTED_DEPTH || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, level + 1));
    if (value instanceof Date) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = walk(child, level + 1);
    return out;
  };
  return <T>(value: T) => walk(value, 1) as T;
}
