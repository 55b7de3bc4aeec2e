// How a CSV/TSV file splits into rows and columns: one set of rules for the counts storage
// reports while a file streams in (packages/storage/src/ingest/table-counter.ts, the numbers in
// the prompt's file block and in file info) and for the table the web app shows (Papa Parse in a
// Web Worker, apps/web/src/viewers/parse-table.ts). The viewer cannot bend Papa Parse, so the
// rules are Papa Parse's own, configured as `TABLE_PARSE_CONFIG` says, and the byte counter
// reimplements them; a shared corpus and a property test hold the two together.
//
// - Records end at `\n`, `\r\n` or a lone `\r`, mixed freely in one file (the viewer turns each
//   into `\n` before parsing: Papa Parse takes one line ending per file).
// - A record whose only field is empty is skipped: blank lines anywhere, `""` alone on a line
//   (Papa Parse's `skipEmptyLines: true`). A line of spaces is a record.
// - The first record left is the header: columns = its field count; rows = the records after it.
//   Ragged rows count as rows; their own length does not change `columns`.
// - A leading UTF-8 BOM is ignored (one; a second one is data).
// - CSV quoting: a `"` at the start of a field opens a quoted field (a `"` anywhere else is data,
//   so an inch mark cannot swallow the file). Inside it, `""` is a quote; a `"` ends the field
//   only when it is followed by optional whitespace (`QUOTE_TRAILING_SPACE`) and then the
//   delimiter, a line break or the end of the text; any other `"` is data and the field goes on.
//   An unclosed quoted field runs to the end of the text.
// - TSV (IANA text/tab-separated-values): tab-delimited, no quoting at all.
// - CSV delimiter: `detectTableDelimiter`, chosen from the first record before parsing (below).

/** Candidate CSV delimiters, in the order that breaks ties. */
export const TABLE_DELIMITERS = [',', ';', '\t', '|'] as const;
export type TableDelimiter = (typeof TABLE_DELIMITERS)[number];
export type TableKind = 'csv' | 'tsv';

/**
 * What may stand between a closing quote and the delimiter or line break: the characters
 * JavaScript's String.prototype.trim removes (Papa Parse tests the gap with it), less the line
 * breaks, which end the record anyway.
 */
export const QUOTE_TRAILING_SPACE: readonly number[] = [
  0x09, 0x0b, 0x0c, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];

/** The Papa Parse settings the rules above correspond to (the viewer passes exactly these). */
export const TABLE_PARSE_CONFIG = {
  newline: '\n',
  quoteChar: '"',
  escapeChar: '"',
  skipEmptyLines: true,
  header: false,
  dynamicTyping: false,
  comments: false,
} as const;

/** Every `\r\n` and lone `\r` as `\n` (also inside quoted fields, where it only changes the text). */
export function normalizeLineBreaks(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const CODES = TABLE_DELIMITERS.map((d) => d.charCodeAt(0));

/**
 * The CSV delimiter, from the first record: whichever of `,` `;` tab `|` occurs most often outside
 * quotes (ties in that order; `,` when none does). Spreadsheets in many locales write `;` into
 * `.csv` files. The delimiter is not known yet, so here quoting is the plain RFC 4180 form: a `"`
 * at the start of the record or after any candidate opens a quoted section, the next single `"`
 * closes it; the record ends at a line break outside quotes after some content (blank lines
 * before it are skipped). Fed one code unit at a time, so bytes (the counter) and UTF-16 text
 * (the viewer) give the same answer: every character that matters is ASCII.
 */
export interface DelimiterDetector {
  /** Feeds one byte or UTF-16 code unit; true once the first record is complete. */
  push(code: number): boolean;
  /** The delimiter by the counts so far (the answer at the end of the text, too). */
  delimiter(): TableDelimiter;
}

export function createDelimiterDetector(): DelimiterDetector {
  const counts = [0, 0, 0, 0];
  let done = false;
  let content = false;
  let fieldStart = true;
  let quoted = false;
  let afterQuote = false;
  return {
    push(code) {
      if (done) return true;
      if (quoted) {
        if (code === QUOTE) {
          quoted = false;
          afterQuote = true;
        }
        return false;
      }
      if (afterQuote && code === QUOTE) {
        // `""` inside a quoted section: still quoted.
        quoted = true;
        afterQuote = false;
        return false;
      }
      afterQuote = false;
      if (code === LF || code === CR) {
        done = content;
        fieldStart = true;
        return done;
      }
      content = true;
      const candidate = CODES.indexOf(code);
      if (candidate !== -1) {
        counts[candidate] = (counts[candidate] as number) + 1;
        fieldStart = true;
      } else {
        quoted = code === QUOTE && fieldStart;
        fieldStart = false;
      }
      return false;
    },
    delimiter() {
      let best = 0;
      for (let i = 1; i < counts.length; i++) {
        if ((counts[i] as number) > (counts[best] as number)) best = i;
      }
      return TABLE_DELIMITERS[best] as TableDelimiter;
    },
  };
}

/** The delimiter of a whole text: tab for TSV, else `createDelimiterDetector` over its first record. */
export function detectTableDelimiter(text: string, kind: TableKind): TableDelimiter {
  if (kind === 'tsv') return '\t';
  const detector = createDelimiterDetector();
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    if (detector.push(text.charCodeAt(i))) break;
  }
  return detector.delimiter();
}
