// Counts rows and columns of a CSV or TSV while the FileStore streams it in, so `info` costs no
// second pass. It sees every byte of uploads that can be many GiB, hence one tight loop over the
// bytes, a few numbers of state, and no strings or allocations per chunk.
//
// Rules (close to what pandas and Python's csv module report for ordinary files):
// - The first non-empty record is the header: `columns` is its field count, `rows` counts the
//   non-empty records after it.
// - `\n`, `\r\n` and a lone `\r` all end a record. Empty lines are skipped (that is also what
//   makes `\r\n` one ending: the `\n` ends an empty line).
// - CSV is quote-aware as in RFC 4180: a `"` at the start of a field opens a quoted field in which
//   delimiters and line breaks are data and `""` is a literal quote; a `"` elsewhere is data, so a
//   stray inch mark (`5" pipe`) cannot swallow the rest of the file.
// - CSV delimiter: whichever of `,` `;` tab `|` occurs most often in the header (ties in that
//   order), because spreadsheet exports in many locales write `;` into `.csv` files.
// - TSV follows IANA text/tab-separated-values: no quoting, every line break ends a record.
// - A UTF-8 BOM at the start is ignored; a last record without a trailing line break counts.
// - An empty file (or only blank lines, or only a BOM) has no header: `result()` is undefined.

export type TableKind = 'csv' | 'tsv';

export interface TableCounts {
  /** Non-empty records after the header. */
  rows: number;
  /** Fields of the header record. */
  columns: number;
}

export interface TableCounter {
  /** Feeds the next chunk; chunks may split records, quotes, `\r\n` or the BOM anywhere. */
  update(chunk: Uint8Array): void;
  /** Counts so far, as if the stream ended here; undefined while no header has been seen. */
  result(): TableCounts | undefined;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const PIPE = 0x7c;
const BOM = [0xef, 0xbb, 0xbf];

// Field states. AFTER_QUOTE is "just saw a `"` inside a quoted field": a second `"` makes it an
// escaped quote, anything else closed the field.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const AFTER_QUOTE = 3;

export function createTableCounter(kind: TableKind): TableCounter {
  const quoting = kind === 'csv';
  // -1 while reading the header: any candidate delimiter then starts a field for quote purposes.
  let delimiter = kind === 'tsv' ? TAB : -1;
  let state = FIELD_START;
  let lineHasContent = false;
  let headerDone = false;
  let rows = 0;
  let columns = 0;
  // Delimiters seen in the header so far (TSV uses only `tabs`).
  let commas = 0;
  let semicolons = 0;
  let tabs = 0;
  let pipes = 0;
  let bomMatched = 0;
  let bomDone = false;
  // Bytes that end a run in data rows: line breaks and, in CSV, the quote.
  const stops = new Uint8Array(256);
  stops[LF] = 1;
  stops[CR] = 1;
  if (quoting) stops[QUOTE] = 1;

  function headerColumns(): number {
    if (kind === 'tsv') return tabs + 1;
    return Math.max(commas, semicolons, tabs, pipes) + 1;
  }

  function chooseDelimiter(): number {
    const best = Math.max(commas, semicolons, tabs, pipes);
    if (best === 0 || commas === best) return COMMA;
    if (semicolons === best) return SEMICOLON;
    return tabs === best ? TAB : PIPE;
  }

  function endRecord(): void {
    if (!headerDone) {
      columns = headerColumns();
      if (delimiter === -1) delimiter = chooseDelimiter();
      headerDone = true;
    } else {
      rows++;
    }
  }

  function skipBom(chunk: Uint8Array): number {
    let i = 0;
    while (i < chunk.length && bomMatched < BOM.length && chunk[i] === BOM[bomMatched]) {
      bomMatched++;
      i++;
    }
    if (bomMatched === BOM.length) {
      bomDone = true;
    } else if (i < chunk.length) {
      // A partial BOM followed by something else was data after all: those bytes (0xEF, 0xBB) are
      // not special, so replaying them only means the first field has started.
      bomDone = true;
      if (bomMatched > 0) {
        lineHasContent = true;
        state = UNQUOTED;
      }
    }
    return i;
  }

  /** The header, byte by byte (it counts delimiters); returns where the header ended. */
  function updateHeader(chunk: Uint8Array, from: number): number {
    let i = from;
    const n = chunk.length;
    while (i < n && !headerDone) {
      const b = chunk[i] as number;
      if (state === QUOTED) {
        const q = chunk.indexOf(QUOTE, i);
        if (q === -1) return n;
        state = AFTER_QUOTE;
        i = q + 1;
        continue;
      }
      i++;
      if (b === LF || b === CR) {
        if (lineHasContent) endRecord();
        lineHasContent = false;
        state = FIELD_START;
        continue;
      }
      lineHasContent = true;
      if (b === QUOTE && quoting) {
        if (state === FIELD_START || state === AFTER_QUOTE) state = QUOTED;
        continue;
      }
      let isDelimiter: boolean;
      if (delimiter === -1) {
        isDelimiter = countHeaderDelimiter(b);
      } else {
        isDelimiter = b === delimiter;
        // Only TSV knows its delimiter while reading the header; `tabs` is its header count.
        if (isDelimiter) tabs++;
      }
      state = isDelimiter ? FIELD_START : UNQUOTED;
    }
    return i;
  }

  // Data rows: the same state machine as the header, but ordinary bytes (delimiters included)
  // cost one table lookup in a loop that does nothing else; only quotes and line breaks leave it.
  function update(chunk: Uint8Array): void {
    let i = bomDone ? 0 : skipBom(chunk);
    if (!headerDone) i = updateHeader(chunk, i);
    const n = chunk.length;
    while (i < n) {
      if (state === QUOTED) {
        // Inside quotes only the next `"` matters; the native search skips quoted text fast.
        const q = chunk.indexOf(QUOTE, i);
        if (q === -1) return;
        state = AFTER_QUOTE;
        i = q + 1;
        continue;
      }
      const start = i;
      while (i < n && stops[chunk[i] as number] === 0) i++;
      if (i > start) {
        // Only the run's last byte decides where the next byte stands: after a delimiter it
        // starts a field (where a quote opens a quoted field), after anything else it does not.
        lineHasContent = true;
        state = chunk[i - 1] === delimiter ? FIELD_START : UNQUOTED;
      }
      if (i === n) return;
      const b = chunk[i++] as number;
      if (b === QUOTE) {
        lineHasContent = true;
        state = state === FIELD_START || state === AFTER_QUOTE ? QUOTED : UNQUOTED;
      } else {
        if (lineHasContent) endRecord();
        lineHasContent = false;
        state = FIELD_START;
      }
    }
  }

  function countHeaderDelimiter(b: number): boolean {
    if (b === COMMA) commas++;
    else if (b === SEMICOLON) semicolons++;
    else if (b === TAB) tabs++;
    else if (b === PIPE) pipes++;
    else return false;
    return true;
  }

  function result(): TableCounts | undefined {
    // The stream may end without a line break: count the open record without changing state, so
    // result() can be asked mid-stream and the counter keeps going.
    if (!headerDone) return lineHasContent ? { rows: 0, columns: headerColumns() } : undefined;
    return { rows: lineHasContent ? rows + 1 : rows, columns };
  }

  return { update, result };
}
