// The text of ferry.config.json, for messages that point into it: a syntax error as
// `file:line:column: what` with the line shown (JSON.parse says "at position 1234" at best, and
// echoes the input at worst), and where each key of a valid file is, so a bad setting is named
// at its line too. The scanner follows RFC 8259 as JSON.parse does; it only looks for positions.

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units from the start of the line. */
  column: number;
}

export interface JsonSyntaxProblem extends SourcePosition {
  message: string;
  /** The line, and a caret under the column, ready to print (indented by two spaces). */
  excerpt: string;
}

export interface JsonSource {
  /** Where the key `path` names is written (an array element: where its value starts). */
  locate(path: readonly PropertyKey[]): SourcePosition | undefined;
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** The first syntax error of `text` (as JSON.parse would reject it); undefined when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  try {
    scan(text, () => {});
    return undefined;
  } catch (error) {
    if (!(error instanceof ScanError)) throw error;
    const position = positionOf(text, error.offset);
    return { ...position, message: error.message, excerpt: excerpt(text, position) };
  }
}

/** Key positions of a valid JSON text (call after JSON.parse accepted it). */
export function indexJsonSource(text: string): JsonSource {
  const offsets = new Map<string, number>();
  try {
    // A key written twice: JSON.parse keeps the last one, and so does this map (the first one's
    // children go with it).
    scan(text, (path, offset) => {
      const key = keyOf(path);
      const children = `${key.slice(0, -1)},`;
      if (offsets.has(key))
        for (const other of [...offsets.keys()]) if (other.startsWith(children)) offsets.delete(other);
      offsets.set(key, offset);
    });
  } catch {
    // Not JSON after all: no positions, the messages just go without them.
  }
  return {
    locate(path) {
      const offset = offsets.get(keyOf(path));
      return offset === undefined ? undefined : positionOf(text, offset);
    },
  };
}

function keyOf(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map(String));
}

function positionOf(text: string, offset: number): SourcePosition {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** `  12 | "fileMode": "path"` and a caret under the column; long lines are cut around it. */
function excerpt(text: string, { line, column }: SourcePosition): string {
  const full = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const from = Math.max(0, column - 1 - 60);
  const to = Math.min(full.length, column - 1 + 60);
  const shown = `${from > 0 ? '…' : ''}${full.slice(from, to)}${to < full.length ? '…' : ''}`;
  const before = `${from > 0 ? '…' : ''}${full.slice(from, column - 1)}`;
  const gutter = String(line);
  // Tabs stay tabs under the line, so the caret lines up in any terminal.
  const pad = before.replace(/[^\t]/g, ' ');
  return `  ${gutter} | ${shown}\n  ${' '.repeat(gutter.length)} | ${pad}^`;
}

type OnKey = (path: readonly (string | number)[], offset: number) => void;

function scan(text: string, onKey: OnKey): void {
  let i = 0;
  const path: (string | number)[] = [];
  const describe = (at: number) => {
    if (at >= text.length) return 'the end of the file';
    const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(at, at + 40))?.[0];
    return word ? `"${word}"` : `'${text[at]}'`;
  };
  const fail = (at: number, message: string): never => {
    throw new ScanError(at, message);
  };
  const skipSpace = () => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*'))
        fail(i, 'comments are not allowed in JSON');
      else return;
    }
  };
  const string = (what: string): string => {
    if (text[i] === "'") fail(i, `${what} must be in double quotes, not single quotes`);
    if (text[i] !== '"') fail(i, `expected ${what} in double quotes, found ${describe(i)}`);
    const start = i;
    i++;
    let value = '';
    for (;;) {
      if (i >= text.length) fail(start, 'this string is never closed (missing ")');
      const c = text[i] as string;
      const code = c.charCodeAt(0);
      if (c === '"') {
        i++;
        return value;
      }
      if (code < 0x20) {
        fail(
          i,
          c === '\n'
            ? 'this string is never closed on its line (missing ")'
            : 'control character in a string',
        );
      }
      if (c === '\\') {
        const next = text[i + 1];
        if (next === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(i, 'bad \\u escape: four hex digits expected');
          value += String.fromCharCode(Number.parseInt(hex, 16));
          i += 6;
          continue;
        }
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (next === undefined || simple[next] === undefined)
          fail(i, `bad escape \\${next ?? ''} in a string`);
        value += simple[next as string];
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) fail(i, 'nested too deeply');
    skipSpace();
    const c = text[i];
    if (c === '{') {
      object(depth);
      return;
    }
    if (c === '[') {
      array(depth);
      return;
    }
    if (c === '"' || c === "'") {
      string('a string');
      return;
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number && (c === '-' || (c !== undefined && c >= '0' && c <= '9'))) {
      i += number[0].length;
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    if (i >= text.length) fail(i, 'unexpected end of the file: a value is missing');
    fail(i, `expected a value (a string, number, object, array, true, false or null), found ${describe(i)}`);
  };
  const object = (depth: number) => {
    const open = i;
    i++;
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      const keyAt = i;
      if (text[i] !== '"' && text[i] !== "'" && /[A-Za-z_$]/.test(text[i] ?? '')) {
        fail(i, `property names must be in double quotes: ${describe(i)}`);
      }
      if (i >= text.length) fail(open, "this object is never closed (missing '}')");
      const key = string('a property name');
      skipSpace();
      if (text[i] !== ':') fail(i, `expected ':' after "${key}", found ${describe(i)}`);
      i++;
      path.push(key);
      onKey(path, keyAt);
      value(depth + 1);
      path.pop();
      const end = i;
      skipSpace();
      // The next property right away: the comma is missing where the value ends.
      if (text[i] === '"') fail(end, `missing ',' after the value of "${key}"`);
      if (text[i] === ',') {
        const comma = i;
        i++;
        skipSpace();
        if (text[i] === '}') fail(comma, "trailing comma before '}' (JSON allows none)");
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      if (i >= text.length) fail(open, "this object is never closed (missing '}')");
      fail(i, `expected ',' or '}' after the value of "${key}", found ${describe(i)}`);
    }
  };
  const array = (depth: number) => {
    const open = i;
    i++;
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (let index = 0; ; index++) {
      skipSpace();
      path.push(index);
      onKey(path, i);
      value(depth + 1);
      path.pop();
      const end = i;
      skipSpace();
      if (text[i] === '"' || text[i] === '{' || text[i] === '[')
        fail(end, "missing ',' after an array element");
      if (text[i] === ',') {
        const comma = i;
        i++;
        skipSpace();
        if (text[i] === ']') fail(comma, "trailing comma before ']' (JSON allows none)");
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      if (i >= text.length) fail(open, "this array is never closed (missing ']')");
      fail(i, `expected ',' or ']' after an array element, found ${describe(i)}`);
    }
  };
  value(0);
  skipSpace();
  if (i < text.length) fail(i, `unexpected ${describe(i)} after the end of the JSON value`);
}
