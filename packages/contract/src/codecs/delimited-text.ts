// CSV/TSV text → rows, by the rules storage's streaming table counter applies while a file is
// stored (packages/storage/src/ingest/table-counter.ts), so the table viewer shows the rows and
// columns My Files reports:
// - records end at `\n`, `\r\n` or a lone `\r`; empty records are skipped; a UTF-8 BOM is ignored;
// - CSV quoting as in RFC 4180, but only a `"` at the start of a field opens a quoted field (a
//   stray inch mark is data); TSV (IANA text/tab-separated-values) has no quoting;
// - the CSV delimiter is whichever of `,` `;` tab `|` occurs most often outside quotes in the first
//   record (ties in that order), `,` when none does.

export type DelimitedKind = 'csv' | 'tsv';

const CANDIDATES = [',', ';', '\t', '|'] as const;

/** The delimiter of `text`: tab for TSV, else chosen from its first record. */
export function detectDelimiter(text: string, kind: DelimitedKind): string {
  if (kind === 'tsv') return '\t';
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let fieldStart = true;
  let quoted = false;
  let seenContent = false;
  for (; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      }
      continue;
    }
    if (ch === '\n' || ch === '\r') {
      if (seenContent) break;
      fieldStart = true;
      continue;
    }
    seenContent = true;
    if (ch === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
    } else if (counts.has(ch)) {
      counts.set(ch, (counts.get(ch) as number) + 1);
      fieldStart = true;
    } else {
      fieldStart = false;
    }
  }
  let best: string = ',';
  let most = 0;
  for (const candidate of CANDIDATES) {
    const count = counts.get(candidate) as number;
    if (count > most) {
      best = candidate;
      most = count;
    }
  }
  return best;
}

/** Every non-empty record of `text` as its fields. */
export function parseDelimited(
  text: string,
  kind: DelimitedKind,
  delimiter = detectDelimiter(text, kind),
): string[][] {
  const quoting = kind === 'csv';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let hasContent = false;
  let fieldStart = true;
  let quoted = false;
  let inHeader = true;
  const endRecord = () => {
    if (hasContent) {
      row.push(field);
      rows.push(row);
      inHeader = false;
    }
    row = [];
    field = '';
    hasContent = false;
    fieldStart = true;
  };
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
      continue;
    }
    if (ch === '\n' || ch === '\r') {
      endRecord();
      continue;
    }
    hasContent = true;
    if (ch === delimiter) {
      row.push(field);
      field = '';
      fieldStart = true;
    } else if (quoting && ch === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
    } else {
      field += ch;
      // In the first record any candidate opens a field for quoting, as while the counter (and
      // detectDelimiter) does not know the delimiter yet; splitting still uses the chosen one.
      fieldStart = inHeader && (CANDIDATES as readonly string[]).includes(ch);
    }
  }
  endRecord();
  return rows;
}
