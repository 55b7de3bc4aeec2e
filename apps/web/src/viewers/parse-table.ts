// CSV/TSV text → the table the viewer shows, by the rules in @ferry/contract's table-rules.ts,
// which are Papa Parse's with TABLE_PARSE_CONFIG: the counts equal the ones storage's streaming
// counter puts in file info and the prompt. Runs inside table.worker.ts, never on the page's
// thread; plain data in and out, so a Node test can run it beside the counter.
//
// The cells go back as one UTF-16 buffer plus offsets (parsed-table.ts): see there why.
import {
  detectTableDelimiter,
  normalizeLineBreaks,
  TABLE_PARSE_CONFIG,
  type TableKind,
} from '@ferry/contract';
import Papa from 'papaparse';
import type { ParsedTable } from './parsed-table';

const WIDTH_SAMPLE = 200;
const MAX_WIDTH_CHARS = 40;

/** Every record the rules keep, header first. */
export function parseRecords(text: string, kind: TableKind): string[][] {
  const result = Papa.parse<string[]>(normalizeLineBreaks(text), {
    ...TABLE_PARSE_CONFIG,
    delimiter: detectTableDelimiter(text, kind),
    // TSV has no quoting: fast mode splits on tabs and line breaks only, quotes are data.
    ...(kind === 'tsv' ? { fastMode: true } : {}),
  });
  return result.data;
}

/**
 * `truncated`: the text is only the start of the file, so its last record may be cut in half and
 * is dropped.
 */
export function parseTable(text: string, kind: TableKind, truncated = false): ParsedTable {
  const records = parseRecords(text, kind);
  if (truncated && records.length > 1) records.pop();
  const header = records[0] ?? [];
  const rowCount = Math.max(0, records.length - 1);
  let cellCount = 0;
  let gridColumns = header.length;
  for (let r = 1; r < records.length; r++) {
    const length = (records[r] as string[]).length;
    cellCount += length;
    if (length > gridColumns) gridColumns = length;
  }
  // The cells hold at most the text's characters (quotes and `\r` are dropped, never added).
  const cells = new Uint16Array(text.length);
  const cellEnds = new Uint32Array(cellCount);
  const rowStarts = new Uint32Array(rowCount + 1);
  let at = 0;
  let cell = 0;
  for (let r = 1; r < records.length; r++) {
    rowStarts[r - 1] = cell;
    for (const value of records[r] as string[]) {
      for (let i = 0; i < value.length; i++) cells[at++] = value.charCodeAt(i);
      cellEnds[cell++] = at;
    }
  }
  rowStarts[rowCount] = cell;
  const widths = new Array<number>(gridColumns).fill(4);
  const sample = [header, ...records.slice(1, WIDTH_SAMPLE + 1), ...records.slice(-WIDTH_SAMPLE)];
  for (const row of sample) {
    row.forEach((value, index) => {
      widths[index] = Math.max(widths[index] ?? 4, Math.min(value.length, MAX_WIDTH_CHARS));
    });
  }
  return {
    header,
    rowCount,
    columns: header.length,
    gridColumns,
    cells: cells.subarray(0, at),
    cellEnds,
    rowStarts,
    widths,
  };
}
