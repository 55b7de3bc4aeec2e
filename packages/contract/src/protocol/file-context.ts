// The file list the host appends to a user prompt (tool contract v2.1 §4.1, format in §4.2):
//
//   [SYSTEM: Available files in current session:
//   - sales_data.csv (uploaded 2024-08-27, 2.1 GB, 5M rows)
//   - draft_report.docx (deferred, needs editing)
//   End available files]
//
// The spec example writes sizes as `2.1GB`; Ferry puts a space before the unit. Deferred entries
// show no date or size, as in the spec example: their status is the information.

export const FILE_CONTEXT_HEADER = '[SYSTEM: Available files in current session:';
export const FILE_CONTEXT_FOOTER = 'End available files]';

export interface FileContextInfo {
  rows?: number;
  columns?: number;
  /** Image width in pixels; shown only together with `height`. */
  width?: number;
  height?: number;
  pages?: number;
  durationSeconds?: number;
}

export interface FileContextEntry {
  name: string;
  source: 'uploaded' | 'generated' | 'deferred';
  /** When the file was uploaded or generated; shown as a UTC date. */
  createdAt: Date | string;
  /** Bytes; a negative or non-finite size is left out. */
  size: number;
  info?: FileContextInfo;
  /** v2.1 §7.1 `reason`, e.g. `needs_editing`; shown with underscores as spaces. */
  deferredReason?: string;
}

export interface FormatFileContextOptions {
  /** Most file lines shown; the `- …and N more` line is extra. @default 50 */
  maxEntries?: number;
  /**
   * Most characters in the whole block. Lines are dropped from the end until it fits; the empty
   * frame with its `…and N more` line is returned even if it is longer. @default 4000
   */
  maxChars?: number;
}

/** v2.1 §9.1 step 4: "Limit filename length to reasonable maximum (255 chars)". */
const MAX_NAME_CHARS = 255;
const MAX_REASON_CHARS = 100;
const SOURCE_ORDER = { uploaded: 0, generated: 1, deferred: 2 } as const;
const SIZE_UNITS = [' B', ' KB', ' MB', ' GB', ' TB'];
const COUNT_UNITS = ['', 'K', 'M', 'B', 'T'];

/**
 * The prompt block listing `files`, or '' when there are none. The order does not depend on the
 * input order: uploaded, generated, deferred; within each, newest first, then by name.
 */
export function formatFileContext(
  files: readonly FileContextEntry[],
  options: FormatFileContextOptions = {},
): string {
  if (files.length === 0) return '';
  const maxEntries = Math.max(0, Math.floor(options.maxEntries ?? 50));
  const maxChars = options.maxChars ?? 4000;
  const rows = files.map((entry) => {
    const time = timeOf(entry.createdAt);
    const name = clean(entry.name, MAX_NAME_CHARS) || 'unnamed';
    return { group: SOURCE_ORDER[entry.source], time, name, line: `- ${name} (${describe(entry, time)})` };
  });
  rows.sort(
    (a, b) =>
      a.group - b.group ||
      (Number.isNaN(a.time) ? 1 : 0) - (Number.isNaN(b.time) ? 1 : 0) ||
      (Number.isNaN(a.time) ? 0 : b.time - a.time) ||
      compareText(a.name, b.name) ||
      compareText(a.line, b.line),
  );
  const lines = rows.map((row) => row.line);
  const more = (hidden: number) => (hidden > 0 ? [`- …and ${hidden} more`] : []);
  const block = (shown: number) =>
    [FILE_CONTEXT_HEADER, ...lines.slice(0, shown), ...more(lines.length - shown), FILE_CONTEXT_FOOTER].join(
      '\n',
    );
  // Lengths grow with the number shown (a file line is longer than the "more" line it replaces),
  // but checking every candidate keeps this correct without relying on that.
  let shown = 0;
  let length = FILE_CONTEXT_HEADER.length + 1 + FILE_CONTEXT_FOOTER.length;
  for (let n = 1; n <= Math.min(lines.length, maxEntries); n++) {
    length += (lines[n - 1] as string).length + 1;
    const extra = n < lines.length ? (more(lines.length - n)[0] as string).length + 1 : 0;
    if (length + extra <= maxChars) shown = n;
  }
  return block(shown);
}

/**
 * Decimal size: one decimal below 10 (trailing `.0` dropped), whole numbers from 10, rounded half
 * up, moving to the next unit when rounding reaches 1000: `999 B`, `1 KB`, `9.9 MB`, `10 MB`.
 */
export function formatByteSize(bytes: number): string {
  return scaled(Math.round(bytes), SIZE_UNITS, 10);
}

function describe(entry: FileContextEntry, time: number): string {
  if (entry.source === 'deferred') {
    const reason = clean((entry.deferredReason ?? '').replace(/_/g, ' '), MAX_REASON_CHARS);
    return reason ? `deferred, ${reason}` : 'deferred';
  }
  const parts = [Number.isNaN(time) ? entry.source : `${entry.source} ${utcDate(time)}`];
  if (Number.isFinite(entry.size) && entry.size >= 0) parts.push(formatByteSize(entry.size));
  const info = entry.info ?? {};
  const count = (value: number | undefined, noun: string, compact = false) => {
    if (value === undefined || !Number.isFinite(value) || value < 0) return;
    const n = Math.round(value);
    parts.push(`${compact ? scaled(n, COUNT_UNITS, 100) : n} ${noun}${n === 1 ? '' : 's'}`);
  };
  count(info.rows, 'row', true);
  count(info.columns, 'column');
  if (isPositive(info.width) && isPositive(info.height)) {
    parts.push(`${Math.round(info.width)}×${Math.round(info.height)} px`);
  }
  count(info.pages, 'page');
  if (
    info.durationSeconds !== undefined &&
    Number.isFinite(info.durationSeconds) &&
    info.durationSeconds >= 0
  ) {
    parts.push(duration(Math.round(info.durationSeconds)));
  }
  return parts.join(', ');
}

/** Compact counts: one decimal below 100, `999 rows`, `12.3K rows`, `2.5M rows`, `100K rows`. */
function scaled(value: number, units: readonly string[], decimalsBelow: number): string {
  let k = 0;
  while (k < units.length - 1 && value >= 1000 ** (k + 1)) k++;
  const unit = 1000 ** k;
  const tenths = Math.round((value * 10) / unit);
  if (k > 0 && tenths < decimalsBelow * 10) return `${tenths / 10}${units[k]}`;
  const whole = Math.round(value / unit);
  if (whole >= 1000 && k < units.length - 1) return `1${units[k + 1]}`;
  return `${whole}${units[k]}`;
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m`;
  return m > 0 ? `${m}m ${pad(s)}s` : `${s}s`;
}

function isPositive(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

function timeOf(createdAt: Date | string): number {
  return createdAt instanceof Date ? createdAt.getTime() : Date.parse(createdAt);
}

function utcDate(time: number): string {
  const date = new Date(time);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** Code-unit order, the same in every locale and runtime (localeCompare is not). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Names and reasons come from users and tools, and the model reads this block as host text, so
 * they are made inert: control, format (bidi overrides, zero-width) and line/paragraph separator
 * characters go, so a name cannot start a line of its own; square brackets become parentheses, so
 * no name can contain the terminator `End available files]` or open a fake `[SYSTEM: …` block.
 */
function clean(text: string, max: number): string {
  const flat = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/[\p{Cf}\p{Cs}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\[/g, '(')
    .replace(/\]/g, ')');
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}
