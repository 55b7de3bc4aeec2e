// The counts My Files reports (the streaming counter) and the table the viewer shows
// (parseDelimited in @ferry/contract) follow one set of rules: for every input, in any chunking,
// rows = parsed records after the header and columns = the header's fields.
import { parseDelimited } from '@ferry/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTableCounter, type TableKind } from '../../src/ingest/table-counter.js';

function counted(text: string, kind: TableKind, cuts: number[]) {
  const bytes = new TextEncoder().encode(text);
  const counter = createTableCounter(kind);
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const at = Math.min(cut, bytes.length);
    counter.update(bytes.subarray(from, Math.max(from, at)));
    from = Math.max(from, at);
  }
  counter.update(bytes.subarray(from));
  return counter.result();
}

function shown(text: string, kind: TableKind) {
  const rows = parseDelimited(text, kind);
  const header = rows[0];
  return header === undefined ? undefined : { rows: rows.length - 1, columns: header.length };
}

const EXAMPLES: [string, TableKind][] = [
  ['a,b\r1,2\r\r\n3,4', 'csv'],
  ['item,size\npipe,5" wide\nnut,1"\n', 'csv'],
  ['q\tr\n"a\tb"\tc\n', 'tsv'],
  ['\uFEFFx;y;z\n1;2;3\n', 'csv'],
  ['"a\nb",c\n1,2', 'csv'],
  ['a|b|c\n1|2|3\n\n\n', 'csv'],
  ['', 'csv'],
  ['\n\r\n', 'csv'],
  ['"x;y;z",b\n1,2\n', 'csv'],
];

describe('storage counts and the table viewer agree', () => {
  it.each(EXAMPLES)('%j (%s)', (text, kind) => {
    expect(counted(text, kind, [])).toEqual(shown(text, kind));
    expect(counted(text, kind, [1, 2, 3, 5, 8])).toEqual(shown(text, kind));
  });

  it('on generated tables of quotes, delimiters and line breaks', () => {
    const piece = fc.constantFrom('a', 'bc', ',', ';', '\t', '|', '"', '""', '\n', '\r', '\r\n', ' ', '5"');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }),
        fc.constantFrom<TableKind>('csv', 'tsv'),
        fc.array(fc.nat(200), { maxLength: 6 }),
        (pieces, kind, cuts) => {
          const text = pieces.join('');
          expect(counted(text, kind, cuts)).toEqual(shown(text, kind));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
