// The beginning of a result too large for the model, sized for the model's text. The model reads
// a tool's answer as JSON (the agent's tool-result.ts), so a preview costs what it takes there:
// a JSON result costs its JSON text; a preview string costs its characters as a JSON string, where
// `"`, `\` and line breaks take two and other control characters and lone surrogates six. A
// preview never ends inside a surrogate pair or an escape sequence, and ends at a line break (text)
// or before a comma (JSON) when one lies near the end.
//
// Results may be tens of MiB: nothing here serializes or scans more than about what it keeps.

/** Compact JSON of a value, at most `maxChars` characters of it. */
export interface JsonPrefix {
  text: string;
  /** The whole value fit: `text` is its JSON. Otherwise `text` has `maxChars + 1` characters. */
  complete: boolean;
}

const FULL: unique symbol = Symbol('full');

/** A string value as it is to be shown; `label` is its key (an array's, for its items). */
export type StringMapper = (text: string, label: string | undefined) => string;

/**
 * `JSON.stringify(value)` for JSON data (what a tool's result parses to), stopping one character
 * past `maxChars`, with every string value passed through `mapString` on the way (the redaction
 * for the model): only what is written is mapped, not the whole result. A long string is escaped
 * only as far as it can be kept.
 */
export function jsonPrefix(
  value: unknown,
  maxChars: number,
  mapString: StringMapper = (text) => text,
): JsonPrefix {
  const parts: string[] = [];
  let length = 0;
  const write = (text: string) => {
    const room = maxChars + 1 - length;
    if (text.length >= room) {
      parts.push(text.slice(0, room));
      length += room;
      throw FULL;
    }
    parts.push(text);
    length += text.length;
  };
  // Cut before escaping: a 5 MiB string is not copied to show its first 16,000 characters. The
  // cut one is longer than the room once quoted, so its wrong closing quote is never kept.
  const writeString = (text: string) => {
    const room = maxChars + 1 - length;
    write(JSON.stringify(text.length > room ? text.slice(0, room) : text));
  };
  const visit = (item: unknown, label: string | undefined): void => {
    if (typeof item === 'string') {
      writeString(mapString(item, label));
      return;
    }
    if (typeof item !== 'object' || item === null) {
      // Numbers, booleans, null; undefined (never in parsed JSON) as JSON.stringify writes it in arrays.
      write(item === undefined ? 'null' : (JSON.stringify(item) ?? 'null'));
      return;
    }
    if (Array.isArray(item)) {
      write('[');
      item.forEach((element, index) => {
        if (index > 0) write(',');
        visit(element, label);
      });
      write(']');
      return;
    }
    write('{');
    let first = true;
    for (const [key, member] of Object.entries(item)) {
      if (member === undefined) continue;
      if (!first) write(',');
      first = false;
      writeString(key);
      write(':');
      visit(member, key);
    }
    write('}');
  };
  try {
    visit(value, undefined);
    return { text: parts.join(''), complete: true };
  } catch (error) {
    if (error !== FULL) throw error;
    return { text: parts.join(''), complete: false };
  }
}

/**
 * How many leading characters of `text` fit in `budget` characters once written as a JSON string
 * (without its quotes); never splits a surrogate pair.
 */
export function embeddedEnd(text: string, budget: number): number {
  let cost = 0;
  for (let at = 0; at < text.length; ) {
    const code = text.charCodeAt(at);
    let width = 1;
    let units = 1;
    if (code === 0x22 || code === 0x5c) width = 2;
    else if (code < 0x20)
      width = code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 2;
        units = 2;
      } else width = 6;
    } else if (code >= 0xdc00 && code <= 0xdfff) width = 6;
    if (cost + width > budget) return at;
    cost += width;
    at += units;
  }
  return text.length;
}

/** The characters `text` takes as a JSON string, quotes included, as long as that is at most `max`. */
export function fitsAsJsonString(text: string, max: number): boolean {
  return max >= 2 && embeddedEnd(text, max - 2) === text.length;
}

/** A clean cut is looked for in the last quarter of what fits. */
const CLEAN_CUT_SHARE = 0.25;

/**
 * The longest clean beginning of `text` whose cost as a JSON string is at most `budget`. `json`:
 * `text` is JSON text (a jsonPrefix), cut before a comma when one is near; otherwise text, cut
 * after a line break, else at a space.
 */
export function previewOf(text: string, budget: number, json: boolean): string {
  const end = embeddedEnd(text, Math.max(0, budget));
  if (end === text.length) return text;
  const from = Math.floor(end * (1 - CLEAN_CUT_SHARE));
  if (json) {
    const comma = text.lastIndexOf(',', end - 1);
    if (comma >= from && comma > 0) return text.slice(0, comma);
    return text.slice(0, outsideEscape(text, end));
  }
  const lineBreak = text.lastIndexOf('\n', end - 1);
  if (lineBreak >= from) return text.slice(0, lineBreak + 1);
  const space = text.lastIndexOf(' ', end - 1);
  if (space >= from && space > 0) return text.slice(0, space);
  return text.slice(0, end);
}

/**
 * `end`, moved back to the start of an escape sequence of JSON text (`\n`, `\"`, `\u00e9`) that it
 * would cut. In JSON text a backslash only ever starts an escape, so the run of backslashes just
 * before the cut says whether the last one is open.
 */
function outsideEscape(text: string, end: number): number {
  for (let back = 1; back <= 6 && end - back >= 0; back++) {
    const at = end - back;
    if (text.charCodeAt(at) !== 0x5c) continue;
    let run = 1;
    while (at - run >= 0 && text.charCodeAt(at - run) === 0x5c) run++;
    // An even run is complete pairs (`\\`); an odd one ends with an escape starting at `at`.
    if (run % 2 === 0) return end;
    const length = text.charCodeAt(at + 1) === 0x75 ? 6 : 2;
    return at + length > end ? at : end;
  }
  return end;
}
