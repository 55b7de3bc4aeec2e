// A small reader for PDF object syntax (ISO 32000-1 §7.3): numbers, names, strings, arrays,
// dictionaries and `n g R` references, enough to follow trailer → catalog → page tree. It works
// on Latin-1 text of a bounded window of the file (one char per byte, so offsets are byte
// offsets) and throws PdfTruncatedError when the window ends mid-object, so the caller can read a
// larger window, or gives up.

export interface PdfRef {
  num: number;
  gen: number;
}

export type PdfValue =
  | number
  | boolean
  | null
  | string // a name, without its slash
  | { ref: PdfRef }
  | { bytes: string; hex?: true } // a string's raw text, escapes undone only where needed (pdf-crypt)
  | { keyword: string }
  | PdfValue[]
  | Map<string, PdfValue>;

export class PdfTruncatedError extends Error {
  constructor() {
    super('PDF window ended mid-object');
    this.name = 'PdfTruncatedError';
  }
}

const MAX_DEPTH = 64;
const WHITESPACE = new Set(['\0', '\t', '\n', '\f', '\r', ' ']);
const DELIMITERS = new Set(['(', ')', '<', '>', '[', ']', '{', '}', '/', '%']);

function isRegular(ch: string | undefined): boolean {
  return ch !== undefined && !WHITESPACE.has(ch) && !DELIMITERS.has(ch);
}

export class PdfLexer {
  /** Where the window ends for this lexer: reaching it means the object was cut short. */
  readonly end: number;

  constructor(
    readonly text: string,
    public pos = 0,
    end = text.length,
  ) {
    this.end = Math.min(end, text.length);
  }

  /** Skips whitespace and comments; throws at the end of the window. */
  skip(): void {
    const { text } = this;
    while (this.pos < this.end) {
      const ch = text[this.pos] as string;
      if (WHITESPACE.has(ch)) this.pos++;
      else if (ch === '%') {
        while (this.pos < this.end && text[this.pos] !== '\n' && text[this.pos] !== '\r') this.pos++;
      } else return;
    }
    throw new PdfTruncatedError();
  }

  /** Whether `word` comes next (after whitespace), as a whole token. */
  peekKeyword(word: string): boolean {
    this.skip();
    return this.text.startsWith(word, this.pos) && !isRegular(this.text[this.pos + word.length]);
  }

  private regular(): string {
    const start = this.pos;
    while (this.pos < this.end && isRegular(this.text[this.pos])) this.pos++;
    if (this.pos >= this.end) throw new PdfTruncatedError();
    return this.text.slice(start, this.pos);
  }

  /** A non-negative integer token, or undefined (position unchanged) when something else is next. */
  integer(): number | undefined {
    const start = this.pos;
    this.skip();
    const match = /\d{1,15}(?![\w.])/y;
    match.lastIndex = this.pos;
    const found = match.exec(this.text);
    if (!found) {
      this.pos = start;
      return undefined;
    }
    this.pos += found[0].length;
    if (this.pos >= this.end) throw new PdfTruncatedError();
    return Number(found[0]);
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new SyntaxError('PDF object nested too deeply');
    this.skip();
    const { text } = this;
    const ch = text[this.pos] as string;
    if (ch === '<' && text[this.pos + 1] === '<') return this.dictionary(depth);
    if (ch === '<') return { ...this.delimited('>'), hex: true };
    if (ch === '(') return this.literalString();
    if (ch === '[') {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skip();
        if (text[this.pos] === ']') break;
        items.push(this.value(depth + 1));
      }
      this.pos++;
      return items;
    }
    if (ch === '/') {
      this.pos++;
      return this.regular();
    }
    if (/[\d+\-.]/.test(ch)) return this.numberOrRef();
    if (!isRegular(ch)) throw new SyntaxError(`unexpected ${JSON.stringify(ch)} in PDF object`);
    const word = this.regular();
    if (word === 'true' || word === 'false') return word === 'true';
    return word === 'null' ? null : { keyword: word };
  }

  private dictionary(depth: number): Map<string, PdfValue> {
    this.pos += 2;
    const dict = new Map<string, PdfValue>();
    for (;;) {
      this.skip();
      if (this.text.startsWith('>>', this.pos)) {
        this.pos += 2;
        return dict;
      }
      const key = this.value(depth + 1);
      if (typeof key !== 'string') throw new SyntaxError('PDF dictionary key is not a name');
      dict.set(key, this.value(depth + 1));
    }
  }

  private delimited(close: string): { bytes: string } {
    const end = this.text.indexOf(close, this.pos + 1);
    if (end === -1 || end >= this.end) throw new PdfTruncatedError();
    const bytes = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return { bytes };
  }

  private literalString(): { bytes: string } {
    const { text } = this;
    const start = ++this.pos;
    // Balanced parentheses nest; a backslash escapes the next char.
    for (let open = 1; this.pos < this.end; this.pos++) {
      const ch = text[this.pos];
      if (ch === '\\') this.pos++;
      else if (ch === '(') open++;
      else if (ch === ')' && --open === 0) {
        this.pos++;
        return { bytes: text.slice(start, this.pos - 1) };
      }
    }
    throw new PdfTruncatedError();
  }

  private numberOrRef(): number | { ref: PdfRef } {
    const token = this.regular();
    const number = Number(token);
    if (!Number.isFinite(number)) throw new SyntaxError(`bad PDF number ${JSON.stringify(token)}`);
    if (!/^\d+$/.test(token)) return number;
    // `12 0 R` is a reference: look ahead for a generation number and `R`.
    const after = this.pos;
    const gen = this.integer();
    if (gen !== undefined && this.peekKeyword('R')) {
      this.pos++;
      return { ref: { num: number, gen } };
    }
    this.pos = after;
    return number;
  }
}

export interface IndirectObject {
  num: number;
  gen: number;
  value: PdfValue;
  /** Offset in the window where the stream's data starts, when the object is a stream. */
  streamStart?: number;
  /** Offset in the window just after what was parsed. */
  next: number;
}

/** Parses `num gen obj value [stream]` at `pos` of the window, reading no further than `end`. */
export function parseIndirectObject(text: string, pos: number, end = text.length): IndirectObject {
  const lexer = new PdfLexer(text, pos, end);
  const num = lexer.integer();
  const gen = lexer.integer();
  if (num === undefined || gen === undefined || !lexer.peekKeyword('obj')) {
    throw new SyntaxError('no indirect object here');
  }
  lexer.pos += 3;
  const value = lexer.value();
  if (!lexer.peekKeyword('stream')) return { num, gen, value, next: lexer.pos };
  // The keyword is followed by CRLF or LF (a lone CR is out of spec but written by some tools).
  let at = lexer.pos + 'stream'.length;
  if (text[at] === '\r') at++;
  if (text[at] === '\n') at++;
  return { num, gen, value, streamStart: at, next: at };
}

export function dictOf(value: PdfValue | undefined): Map<string, PdfValue> | undefined {
  return value instanceof Map ? value : undefined;
}

export function refOf(value: PdfValue | undefined): PdfRef | undefined {
  return value !== null && typeof value === 'object' && 'ref' in value ? value.ref : undefined;
}

export function intOf(value: PdfValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
