// Host paths (the data directory, the workspaces) must not reach API clients: they tell an
// attacker where things live and, unsandboxed, tools see and echo them. Messages from packages
// (a server's stderr, a tool's progress text) may carry them, so every outgoing string that did
// not come from the API's own schemas passes through here.

export type PathRedactor = <T>(value: T) => T;

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
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (depth > 32 || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    if (value instanceof Date) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = walk(child, depth + 1);
    return out;
  };
  return <T>(value: T) => walk(value, 0) as T;
}
