// Counts rows and columns of a CSV or TSV while the FileStore streams it in, so `info` costs no
// second pass. It sees every byte of uploads that can be many GiB, hence tight loops over the
// bytes, a few numbers of state, and no strings or allocations per chunk.
//
// The rules are written down once, in @ferry/contract's table-rules.ts: they are Papa Parse's, as
// the web app's table viewer runs it, so the viewer shows the numbers the prompt and file info
// show. This file is their byte-stream form. While the CSV delimiter is still unknown (the first
// record decides it) one record machine per candidate delimiter runs over the same bytes; the
// detector's choice keeps its machine, so no byte is buffered or read twice.
import {
  createDelimiterDetector,
  QUOTE_TRAILING_SPACE,
  TABLE_DELIMITERS,
  type TableKind,
} from '@ferry/contract';

export type { TableKind };

export interface TableCounts {
  /** Records after the header (records whose only field is empty are skipped). */
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
const BOM = [0xef, 0xbb, 0xbf];

// Field states. AFTER_QUOTE: just saw a `"` inside a quoted field, which closes it if the
// delimiter or a line break follows (after optional spaces, AFTER_SPACE) or the text ends there.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const AFTER_QUOTE = 3;
const AFTER_SPACE = 4;

// QUOTE_TRAILING_SPACE as UTF-8: one-byte spaces in a table, longer ones as numbers built from
// their bytes (prefixes too, since a chunk may end inside one).
const SPACE_BYTE = new Uint8Array(256);
const SPACE_SEQUENCES = new Set<number>();
const SPACE_PREFIXES = new Set<number>();
for (const code of QUOTE_TRAILING_SPACE) {
  const bytes = new TextEncoder().encode(String.fromCodePoint(code));
  if (bytes.length === 1) SPACE_BYTE[bytes[0] as number] = 1;
  let value = 0;
  bytes.forEach((byte, i) => {
    value = value * 256 + byte;
    if (bytes.length === 1) return;
    (i === bytes.length - 1 ? SPACE_SEQUENCES : SPACE_PREFIXES).add(value);
  });
}

interface RecordMachine {
  update(chunk: Uint8Array, from: number): void;
  result(): TableCounts | undefined;
}

function createRecordMachine(delimiter: number, quoting: boolean): RecordMachine {
  let state = FIELD_START;
  /** Bytes of a multi-byte space read so far after a candidate closing quote; 0 if none. */
  let spacePrefix = 0;
  /** The open record is still `['']`: no delimiter, no character of field value yet. */
  let blank = true;
  let fields = 1;
  let headerDone = false;
  let rows = 0;
  let columns = 0;
  // Bytes that end a fast run in data rows: line breaks and, in CSV, the quote.
  const stops = new Uint8Array(256);
  stops[LF] = 1;
  stops[CR] = 1;
  if (quoting) stops[QUOTE] = 1;

  function endRecord(): void {
    if (!blank) {
      if (headerDone) rows++;
      else {
        columns = fields;
        headerDone = true;
      }
    }
    blank = true;
    fields = 1;
    state = FIELD_START;
  }

  /** One byte in any state: the rules in full. The fast loops in update() only shortcut it. */
  function step(b: number): void {
    if (state === QUOTED) {
      if (b === QUOTE) state = AFTER_QUOTE;
      else blank = false;
      return;
    }
    if (state === AFTER_QUOTE || state === AFTER_SPACE) {
      afterQuote(b);
      return;
    }
    if (b === LF || b === CR) {
      endRecord();
    } else if (b === delimiter) {
      fields++;
      blank = false;
      state = FIELD_START;
    } else if (b === QUOTE && quoting && state === FIELD_START) {
      // `""` alone is still an empty field, so opening a quote leaves `blank` as it is.
      state = QUOTED;
    } else {
      blank = false;
      state = UNQUOTED;
    }
  }

  function afterQuote(b: number): void {
    if (spacePrefix !== 0) {
      const value = spacePrefix * 256 + b;
      if (SPACE_SEQUENCES.has(value)) {
        spacePrefix = 0;
        state = AFTER_SPACE;
      } else if (SPACE_PREFIXES.has(value)) {
        spacePrefix = value;
      } else {
        // Not a space after all: the quote was data and the quoted field goes on with this byte.
        spacePrefix = 0;
        state = QUOTED;
        blank = false;
        step(b);
      }
      return;
    }
    if (b === delimiter) {
      fields++;
      blank = false;
      state = FIELD_START;
    } else if (b === LF || b === CR) {
      endRecord();
    } else if (b === QUOTE && state === AFTER_QUOTE) {
      // `""`: an escaped quote.
      blank = false;
      state = QUOTED;
    } else if (SPACE_BYTE[b] === 1) {
      state = AFTER_SPACE;
    } else if (SPACE_PREFIXES.has(b)) {
      spacePrefix = b;
    } else {
      // The candidate was data; a `"` after spaces is the next candidate, as Papa Parse searches on.
      blank = false;
      state = b === QUOTE ? AFTER_QUOTE : QUOTED;
    }
  }

  function update(chunk: Uint8Array, from: number): void {
    let i = from;
    const n = chunk.length;
    while (i < n) {
      if (state === QUOTED) {
        // Inside quotes only the next `"` matters; the native search skips quoted text fast.
        const q = chunk.indexOf(QUOTE, i);
        const end = q === -1 ? n : q;
        if (end > i) blank = false;
        if (q === -1) return;
        state = AFTER_QUOTE;
        i = q + 1;
        continue;
      }
      if (headerDone && (state === FIELD_START || state === UNQUOTED)) {
        // Data rows: only the field count of the header matters, so ordinary bytes (delimiters
        // included) cost one table lookup. The run's last byte decides whether the next byte
        // stands at a field start, where a quote opens a quoted field.
        const start = i;
        while (i < n && stops[chunk[i] as number] === 0) i++;
        if (i > start) {
          blank = false;
          state = chunk[i - 1] === delimiter ? FIELD_START : UNQUOTED;
        }
        if (i === n) return;
      }
      step(chunk[i++] as number);
    }
  }

  function result(): TableCounts | undefined {
    // As if the stream ended here, without changing state. A candidate quote closes the field at
    // the very end of the text only; with spaces after it, it was data.
    const open = !blank || state === AFTER_SPACE || spacePrefix !== 0;
    if (!headerDone) return open ? { rows: 0, columns: fields } : undefined;
    return { rows: open ? rows + 1 : rows, columns };
  }

  return { update, result };
}

export function createTableCounter(kind: TableKind): TableCounter {
  // TSV: one machine, tab, no quoting. CSV: one machine per candidate until the header is read.
  const machines =
    kind === 'tsv'
      ? [createRecordMachine(TAB, false)]
      : TABLE_DELIMITERS.map((d) => createRecordMachine(d.charCodeAt(0), true));
  const detector = kind === 'csv' ? createDelimiterDetector() : undefined;
  let chosen: RecordMachine | undefined = kind === 'tsv' ? machines[0] : undefined;
  let bomMatched = 0;
  let bomDone = false;

  function machineFor(): RecordMachine {
    const index = detector ? TABLE_DELIMITERS.indexOf(detector.delimiter()) : 0;
    return machines[index] as RecordMachine;
  }

  function feed(chunk: Uint8Array, from: number): void {
    if (chosen) {
      chosen.update(chunk, from);
      return;
    }
    for (const machine of machines) machine.update(chunk, from);
    for (let i = from; i < chunk.length; i++) {
      if (detector?.push(chunk[i] as number)) {
        chosen = machineFor();
        return;
      }
    }
  }

  function update(chunk: Uint8Array): void {
    let i = 0;
    if (!bomDone) {
      while (i < chunk.length && bomMatched < BOM.length && chunk[i] === BOM[bomMatched]) {
        bomMatched++;
        i++;
      }
      if (bomMatched === BOM.length) bomDone = true;
      else if (i < chunk.length) {
        // Bytes that only started like a BOM were data after all.
        bomDone = true;
        if (bomMatched > 0) feed(Uint8Array.from(BOM.slice(0, bomMatched)), 0);
      }
    }
    if (i < chunk.length) feed(chunk, i);
  }

  function result(): TableCounts | undefined {
    // A stream that ends mid-BOM (`EF BB`) ends with those bytes as data.
    if (!bomDone && bomMatched > 0 && !chosen) {
      const probe = createTableCounter(kind);
      probe.update(Uint8Array.from([...BOM.slice(0, bomMatched), 0x0a]));
      return probe.result();
    }
    return (chosen ?? machineFor()).result();
  }

  return { update, result };
}
