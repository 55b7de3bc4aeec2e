// "did you mean": the setting a misspelt key was probably meant to be. The known keys come from
// the zod schemas that validate each part of the config (the schema is the one list of settings),
// the guess from an edit distance small enough that it is a typo and not another word.
import type { z } from 'zod';

/** The candidate closest to `word`, when it is close enough to be a typo of it. */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  // A third of the word may be wrong ("trustedProxy" → "trustedProxies"), at least one letter.
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; distance: number; skew: number } | undefined;
  for (const name of candidates) {
    if (name === word) continue;
    const distance = editDistance(lower, name.toLowerCase());
    // A tie goes to the name of the same length ("serverz": "servers", not "server").
    const skew = Math.abs(name.length - word.length);
    if (distance > allowed) continue;
    if (best === undefined || distance < best.distance || (distance === best.distance && skew < best.skew)) {
      best = { name, distance, skew };
    }
  }
  return best?.name;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring letters ("fiel" → "file") cost 1 each.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    rows.push(row);
  }
  const first = rows[0] as number[];
  for (let j = 0; j <= b.length; j++) first[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

type AnySchema = z.core.$ZodType;

/**
 * The keys an object schema at `path` inside `schema` accepts; undefined when there is no object
 * there (a value, a record with free keys). Wrappers (default, optional, pipe, transform) are
 * looked through; a union gives the keys of all its object options.
 */
function schemaKeysAt(schema: AnySchema, path: readonly PropertyKey[]): string[] | undefined {
  const found = new Set<string>();
  let any = false;
  const visit = (node: AnySchema, rest: readonly PropertyKey[], depth: number) => {
    if (depth > 32) return;
    const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'default':
      case 'prefault':
      case 'optional':
      case 'nullable':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        return visit(def.innerType as AnySchema, rest, depth + 1);
      case 'pipe':
        return visit(def.in as AnySchema, rest, depth + 1);
      case 'lazy':
        return visit((def.getter as () => AnySchema)(), rest, depth + 1);
      case 'union':
        for (const option of def.options as AnySchema[]) visit(option, rest, depth + 1);
        return;
      case 'array':
        if (rest.length > 0) visit(def.element as AnySchema, rest.slice(1), depth + 1);
        return;
      case 'record':
        if (rest.length > 0) visit(def.valueType as AnySchema, rest.slice(1), depth + 1);
        return;
      case 'object': {
        const shape = def.shape as Record<string, AnySchema>;
        if (rest.length === 0) {
          any = true;
          for (const key of Object.keys(shape)) found.add(key);
          return;
        }
        const child = shape[String(rest[0])];
        if (child !== undefined) visit(child, rest.slice(1), depth + 1);
        return;
      }
      default:
        return;
    }
  };
  visit(schema, path, 0);
  return any ? [...found] : undefined;
}

/**
 * ` (did you mean "x"?)` when the last key of `path` is not a setting of the object schema it
 * sits in and a known one is close to it; '' otherwise.
 */
export function unknownKeyHint(schema: AnySchema, path: readonly PropertyKey[]): string {
  const key = path.at(-1);
  if (typeof key !== 'string') return '';
  const known = schemaKeysAt(schema, path.slice(0, -1));
  if (known === undefined || known.includes(key)) return '';
  const guess = closestName(key, known);
  return guess === undefined ? '' : ` (did you mean "${guess}"?)`;
}
