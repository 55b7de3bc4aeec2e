// Tool names as the model sees them: `<server>__<tool>`, within OpenAI's rule
// ^[a-zA-Z0-9_-]{1,64}$. MCP tool names may hold dots, slashes or be long, and two servers may
// offer the same tool, so a name that had to be changed, or that would collide, gets a short hash
// of the real pair. The mapping back is a table lookup, never a split of the string.
import { createHash } from 'node:crypto';

export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const SEPARATOR = '__';

export interface ToolRef {
  server: string;
  tool: string;
}

export interface ToolNameTable {
  /** The model's name for a tool. */
  nameOf(ref: ToolRef): string | undefined;
  /** The tool a model's name stands for; undefined for a name this table never gave out. */
  resolve(name: string): ToolRef | undefined;
  readonly names: readonly string[];
}

/** Deterministic: the same tools give the same names whatever order they come in. */
export function createToolNameTable(refs: readonly ToolRef[]): ToolNameTable {
  const sorted = [...refs].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const byName = new Map<string, ToolRef>();
  const byRef = new Map<string, string>();
  for (const ref of sorted) {
    const key = refKey(ref);
    if (byRef.has(key)) continue;
    const plain = `${clean(ref.server)}${SEPARATOR}${clean(ref.tool)}`;
    const exact = plain === `${ref.server}${SEPARATOR}${ref.tool}` && plain.length <= MAX;
    let name = exact && !byName.has(plain) ? plain : hashed(plain, key, '');
    for (let n = 2; byName.has(name); n++) name = hashed(plain, key, String(n));
    byName.set(name, ref);
    byRef.set(key, name);
  }
  return {
    nameOf: (ref) => byRef.get(refKey(ref)),
    resolve: (name) => (typeof name === 'string' ? byName.get(name) : undefined),
    names: [...byName.keys()],
  };
}

function hashed(plain: string, key: string, extra: string): string {
  const suffix = `_${createHash('sha256').update(key).update(extra).digest('hex').slice(0, 8)}${extra}`;
  return `${plain.slice(0, MAX - suffix.length)}${suffix}`;
}

function clean(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
}

function refKey(ref: ToolRef): string {
  return `${ref.server}\u0000${ref.tool}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
