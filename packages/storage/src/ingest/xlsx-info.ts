// Rows and columns of a workbook's first worksheet from its `<dimension ref="A1:D100"/>`, which
// spreadsheet writers put near the start of the sheet XML, before the cell data. So only the
// zip directory, the small workbook and relationship parts, and the first few KiB of the sheet
// are read and inflated, however large the sheet is. A small sheet read whole without a usable
// dimension is measured from its cells instead.

import type { ByteSource } from './byte-source.js';
import type { TableCounts } from './table-counter.js';
import { readZipDirectory, readZipEntry, type ZipEntry } from './zip-directory.js';

/** Caps for the workbook and relationship parts, read whole. */
const PART_LIMITS = { maxInput: 1024 * 1024, maxOutput: 8 * 1024 * 1024 };
/**
 * Sheet prefixes tried in turn until `<dimension>` or the cell data shows up. Deflate expands
 * at most ~1032×, so the second step's output cap also bounds a zip bomb's cost.
 */
const SHEET_STEPS = [
  { maxInput: 16 * 1024, maxOutput: 17 * 1024 * 1024 },
  { maxInput: 256 * 1024, maxOutput: 32 * 1024 * 1024 },
];
const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
const FALLBACK_SHEET = 'xl/worksheets/sheet1.xml';

// Tag patterns end with `[^<>]*>`, not `[^>]*>`: XML allows no `<` inside a tag, and stopping
// there keeps each scan linear. With `[^>]*`, a run of unclosed `<dimension` rescanned the rest
// of the text from every one of them: a 600-byte workbook held the event loop for 1.4 s.

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
  return match ? (match[1] ?? match[2]) : undefined;
}

async function readText(src: ByteSource, entry: ZipEntry | undefined): Promise<string | null> {
  if (!entry) return null;
  const bytes = await readZipEntry(src, entry, PART_LIMITS);
  return bytes ? new TextDecoder().decode(bytes) : null;
}

/** `xl/worksheets/sheet1.xml` for the first worksheet in tab order, from workbook + its rels. */
function firstSheetPath(workbook: string, rels: string): string | null {
  const targets = new Map<string, string>();
  for (const match of rels.matchAll(/<(?:\w+:)?Relationship\b[^<>]*>/g)) {
    const id = attribute(match[0], 'Id');
    const type = attribute(match[0], 'Type');
    const target = attribute(match[0], 'Target');
    // Chart sheets and dialog sheets have no rows; skip to the first real worksheet.
    if (id && target && type?.endsWith('/worksheet')) targets.set(id, target);
  }
  // The sheet's relationship id is a namespaced attribute (`r:id`), unlike its `sheetId`.
  for (const match of workbook.matchAll(/<(?:\w+:)?sheet\b[^<>]*>/g)) {
    const id = /\s[\w.-]+:id\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(match[0]);
    const target = targets.get(id?.[1] ?? id?.[2] ?? '');
    if (target) return target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
  }
  return null;
}

function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** `A1:D100` → 100 rows, 4 columns; `B3` → 1 × 1. */
function shapeOfRef(ref: string): TableCounts | null {
  const match = /^\$?([A-Z]{1,3})\$?(\d{1,7})(?::\$?([A-Z]{1,3})\$?(\d{1,7}))?$/.exec(
    ref.trim().toUpperCase(),
  );
  if (!match) return null;
  const [, c1 = '', r1 = '', c2 = c1, r2 = r1] = match;
  const columns = Math.abs(columnNumber(c2) - columnNumber(c1)) + 1;
  const rows = Math.abs(Number(r2) - Number(r1)) + 1;
  return { rows, columns };
}

/**
 * Rows and columns spanned by the cells that hold something, from the cell data itself: for a
 * sheet read whole whose writer left out `<dimension>` or never filled it in. `r` is optional on
 * rows and cells (streaming writers omit it); then they follow the previous one.
 */
function extentOfCells(xml: string): TableCounts {
  let row = 0;
  let column = 0;
  let top = Number.POSITIVE_INFINITY;
  let bottom = 0;
  let left = Number.POSITIVE_INFINITY;
  let right = 0;
  for (const match of xml.matchAll(/<(?:\w+:)?(row|c)\b([^<>]*)>/g)) {
    const ref = attribute(match[2] ?? '', 'r');
    if (match[1] === 'row') {
      row = ref !== undefined && /^\d{1,7}$/.test(ref) ? Number(ref) : row + 1;
      column = 0;
      continue;
    }
    const cell = ref === undefined ? null : /^\$?([A-Z]{1,3})\$?(\d{1,7})$/.exec(ref.toUpperCase());
    column = cell ? columnNumber(cell[1] ?? '') : column + 1;
    if (cell) row = Number(cell[2]);
    // `<c r="B2" s="1"/>` is formatting without a value.
    if ((match[2] ?? '').endsWith('/')) continue;
    top = Math.min(top, row);
    bottom = Math.max(bottom, row);
    left = Math.min(left, column);
    right = Math.max(right, column);
  }
  return bottom === 0 ? { rows: 0, columns: 0 } : { rows: bottom - top + 1, columns: right - left + 1 };
}

/** `complete` when `xml` is the whole sheet, not a prefix of it. */
function shapeOfSheet(xml: string, complete: boolean): TableCounts | null | 'more' {
  // The prefix can be 16 MiB of a crafted sheet; the literal test is far cheaper than a regex
  // scan, and a tag pattern cannot match without it.
  const hasSheetData = xml.includes('sheetData');
  const dimension = xml.includes('dimension') ? /<(?:\w+:)?dimension\b[^<>]*>/.exec(xml) : null;
  // openpyxl writes `<sheetData></sheetData>`, others `<sheetData/>`.
  const empty = hasSheetData && /<(?:\w+:)?sheetData\s*(?:\/>|>\s*<\/(?:\w+:)?sheetData>)/.test(xml);
  if (dimension) {
    const shape = shapeOfRef(attribute(dimension[0], 'ref') ?? '');
    // An empty sheet still says `A1`; its empty `<sheetData/>` tells it apart from one cell.
    if (shape && empty) return { rows: 0, columns: 0 };
    // A one-cell dimension over several cells is a writer that never fills it in: unknown,
    // unless the whole sheet is at hand to count.
    if (shape && shape.rows * shape.columns === 1 && (xml.match(/<(?:\w+:)?c\b/g)?.length ?? 0) > 1) {
      return complete ? extentOfCells(xml) : null;
    }
    return shape;
  }
  if (empty) return { rows: 0, columns: 0 };
  if (complete) return extentOfCells(xml);
  // The dimension precedes the cell data; once the data started, the writer left it out.
  return hasSheetData && /<(?:\w+:)?sheetData\b/.test(xml) ? null : 'more';
}

export async function xlsxInfo(src: ByteSource): Promise<TableCounts | null> {
  const entries = await readZipDirectory(src);
  if (!entries) return null;
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const workbook = await readText(src, byName.get(WORKBOOK));
  const rels = await readText(src, byName.get(WORKBOOK_RELS));
  const path = workbook !== null && rels !== null ? firstSheetPath(workbook, rels) : FALLBACK_SHEET;
  const sheet = path === null ? undefined : byName.get(path);
  if (!sheet) return null;
  for (const step of SHEET_STEPS) {
    const bytes = await readZipEntry(src, sheet, step);
    if (!bytes) return null;
    // The output cap throws before a part is cut, so having read all input means the whole sheet.
    const complete = step.maxInput >= sheet.compressedSize;
    const shape = shapeOfSheet(new TextDecoder().decode(bytes), complete);
    if (shape !== 'more') return shape;
    if (complete) return null;
  }
  return null;
}
