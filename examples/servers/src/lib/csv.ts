// A small streaming CSV reader (RFC 4180): records are split while reading, so an input of any
// size passes through without being held whole, and a quoted field may contain commas, doubled
// quotes and line breaks.
import { createReadStream } from 'node:fs';

/**
 * Raw records of a CSV stream, without their line terminators (LF or CRLF). A UTF-8 BOM is
 * dropped and blank lines are skipped. Quotes are tracked only to find record ends; use
 * parseCsvRecord for the fields.
 */
export async function* csvRecords(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let quoted = false;
  let first = true;
  for await (const chunk of source) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) quoted = !quoted;
      else if (c === 0x0a && !quoted) {
        const record = trimCr(pending + text.slice(start, i));
        pending = '';
        start = i + 1;
        if (record !== '') yield record;
      }
    }
    pending += text.slice(start);
  }
  const last = trimCr(pending + decoder.decode());
  if (last !== '') yield last;
}

/** The records of a local CSV file. */
export function csvFileRecords(path: string): AsyncGenerator<string> {
  return csvRecords(createReadStream(path));
}

/** Splits one record into fields, unquoting `"a ""b"""` → `a "b"`. */
export function parseCsvRecord(record: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const c = record[i];
    if (quoted) {
      if (c === '"' && record[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

/** One field as CSV: quoted when it holds a comma, quote or line break. */
export function formatCsvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function trimCr(record: string): string {
  return record.endsWith('\r') ? record.slice(0, -1) : record;
}
