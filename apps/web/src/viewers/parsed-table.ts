// The parsed table as the worker hands it to the page. The cells are one UTF-16 buffer plus
// offsets, transferred rather than copied: a 60 MiB CSV is millions of strings, and a structured
// clone of them would be rebuilt on the page's thread in one long task. The viewer decodes only
// the cells it draws. Kept apart from parse-table.ts so Papa Parse stays out of the page's bundle.

export interface ParsedTable {
  header: string[];
  /** Records after the header: the counter's `rows`. */
  rowCount: number;
  /** Fields of the header: the counter's `columns`. */
  columns: number;
  /** Columns to draw: ragged rows longer than the header keep their extra cells visible. */
  gridColumns: number;
  /** Every data cell's text, one after another. */
  cells: Uint16Array;
  /** cellEnds[k] is where cell k ends in `cells` (it starts where cell k − 1 ends). */
  cellEnds: Uint32Array;
  /** rowStarts[r] is the index of row r's first cell; rowCount + 1 entries. */
  rowStarts: Uint32Array;
  /** Widths in characters (capped at 40), from the first and last rows and the header. */
  widths: number[];
}

const utf16 = new TextDecoder('utf-16le');

/** The cells of row `index` (the header excluded), decoded from the shared buffer. */
export function tableRow(table: ParsedTable, index: number): string[] {
  const first = table.rowStarts[index] ?? 0;
  const last = table.rowStarts[index + 1] ?? first;
  const row: string[] = [];
  for (let k = first; k < last; k++) {
    const start = k === 0 ? 0 : (table.cellEnds[k - 1] as number);
    row.push(utf16.decode(table.cells.subarray(start, table.cellEnds[k])));
  }
  return row;
}
