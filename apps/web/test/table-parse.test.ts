// The table viewer (Papa Parse in a worker, parse-table.ts) and storage's streaming counter (the
// rows/columns in file info and the prompt) follow the one set of rules in @ferry/contract's
// table-rules.ts: a corpus with the expected numbers, then random tables built from the same
// pieces, fed to the counter in random chunks. The counter is imported from its source: the web
// app does not depend on @ferry/storage, and storage's barrel does not export it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTableCounter,
  type TableCounts,
  type TableKind,
} from '../../../packages/storage/src/ingest/table-counter.js';
import { parseRecords, parseTable } from '../src/viewers/parse-table.js';
import { tableRow } from '../src/viewers/parsed-table.js';

const encoder = new TextEncoder();

function counted(bytes: Uint8Array, kind: TableKind, cuts: readonly number[] = []) {
  const counter = createTableCounter(kind);
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const at = Math.min(Math.max(cut, from), bytes.length);
    counter.update(bytes.subarray(from, at));
    from = at;
  }
  counter.update(bytes.subarray(from));
  return counter.result();
}

/** What the viewer shows, decoding the bytes as its worker does (a BOM stays in the text). */
function shown(bytes: Uint8Array, kind: TableKind): TableCounts | undefined {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const table = parseTable(text, kind);
  return table.columns === 0 ? undefined : { rows: table.rowCount, columns: table.columns };
}

const BOM = '\ufeff';
const CORPUS: [name: string, text: string, kind: TableKind, expected: TableCounts | undefined][] = [
  ['plain LF', 'a,b,c\n1,2,3\n4,5,6\n', 'csv', { rows: 2, columns: 3 }],
  ['no final line break', 'a,b,c\n1,2,3\n4,5,6', 'csv', { rows: 2, columns: 3 }],
  ['blank lines in the middle', 'a,b\n1,2\n\n\n3,4\n', 'csv', { rows: 2, columns: 2 }],
  ['blank lines trailing and leading', '\n\na,b\n1,2\n\n\r\n\n', 'csv', { rows: 1, columns: 2 }],
  ['lone CR line endings', 'a,b\r1,2\r3,4\r', 'csv', { rows: 2, columns: 2 }],
  ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n', 'csv', { rows: 2, columns: 2 }],
  ['mixed line endings', 'a,b\r\n1,2\n3,4\r5,6', 'csv', { rows: 3, columns: 2 }],
  ['CR CRLF is a blank line', 'a,b\r1,2\r\r\n3,4', 'csv', { rows: 2, columns: 2 }],
  [
    'quoted newlines and delimiters',
    'name,notes\n"Smith, J","line1\nline2 ""quoted""\r\nline3"\nx,"a ""b"", c"\n',
    'csv',
    { rows: 2, columns: 2 },
  ],
  ['quoted header fields', '"a,b","c\nd",e\n1,2,3\n', 'csv', { rows: 1, columns: 3 }],
  ['inch mark is data', 'size,desc\n5" pipe,ok\n6,x\n', 'csv', { rows: 2, columns: 2 }],
  ['unterminated quote runs to the end', 'a,b\n1,"open\n2,3\n4,5\n', 'csv', { rows: 1, columns: 2 }],
  ['closing quote then spaces', 'a,b\n"x"  ,y\n"z" \n', 'csv', { rows: 2, columns: 2 }],
  ['quote followed by text is data', 'a,b\n"x"y,z\n1,2"\n', 'csv', { rows: 1, columns: 2 }],
  ['"" alone on a line is blank', 'a,b\n""\n1,2\n', 'csv', { rows: 1, columns: 2 }],
  ['"" , "" is a row', '"",""\n"",""\n', 'csv', { rows: 1, columns: 2 }],
  ['a line of spaces is a row', 'a,b\n   \n1,2\n', 'csv', { rows: 2, columns: 2 }],
  ['pipe-delimited', 'a|b|c|d\n1|2|3|4\n', 'csv', { rows: 1, columns: 4 }],
  ['semicolon-delimited', 'a;b;c\n1;2;3\n"x;y";"2\n";3\n', 'csv', { rows: 2, columns: 3 }],
  ['tab in a .csv', 'a\tb\n1\t2\n', 'csv', { rows: 1, columns: 2 }],
  ['ties go to the comma', 'a,b;c\n1,2;3\n', 'csv', { rows: 1, columns: 2 }],
  ['quoted delimiters do not vote', '"x;y;z",b\n1,2\n', 'csv', { rows: 1, columns: 2 }],
  ['TSV', 'a\tb\tc\n1\t2\t3\r\n4\t5\t6', 'tsv', { rows: 2, columns: 3 }],
  ['TSV has no quoting', 'a\tb\n"x\ty"\t1\n"open\t2\n', 'tsv', { rows: 2, columns: 2 }],
  ['BOM', `${BOM}"id,x",name\n1,a\n2,b\n`, 'csv', { rows: 2, columns: 2 }],
  ['a second BOM is data', `${BOM}${BOM}a,b\n1,2\n`, 'csv', { rows: 1, columns: 2 }],
  ['header only', 'a,b,c', 'csv', { rows: 0, columns: 3 }],
  ['header only with CRLF', 'a,b,c\r\n', 'csv', { rows: 0, columns: 3 }],
  ['empty file', '', 'csv', undefined],
  ['only a BOM', BOM, 'csv', undefined],
  ['only blank lines', '\n\r\n\n', 'csv', undefined],
  ['empty TSV', '', 'tsv', undefined],
  ['ragged rows', 'a,b,c\n1\n1,2,3,4,5\n,\n', 'csv', { rows: 3, columns: 3 }],
  ['multi-byte text', 'ville,名前\nZürich,"日本\n語"\nKöln,é\n', 'csv', { rows: 2, columns: 2 }],
  ['no-break space after a closing quote', 'a,b\n"x"\u00a0,y\n', 'csv', { rows: 1, columns: 2 }],
];

describe('the viewer and the counter agree on the corpus', () => {
  it.each(CORPUS)('%s', (_name, text, kind, expected) => {
    const bytes = encoder.encode(text);
    expect(shown(bytes, kind)).toEqual(expected);
    expect(counted(bytes, kind)).toEqual(expected);
    // Byte by byte: every split of a record, a quote, `\r\n`, the BOM or a multi-byte space.
    expect(
      counted(
        bytes,
        kind,
        Array.from(bytes, (_, i) => i),
      ),
    ).toEqual(expected);
  });

  it('keeps the cells, quotes undone, for the rows it draws', () => {
    const table = parseTable('name,notes\r\n"Smith, J","say ""hi"""\r\n\r\nx\r\n', 'csv');
    expect(table.header).toEqual(['name', 'notes']);
    expect([tableRow(table, 0), tableRow(table, 1)]).toEqual([['Smith, J', 'say "hi"'], ['x']]);
  });

  it('drops the cut last record of a truncated read', () => {
    expect(parseTable('a,b\n1,2\n3,"cut', 'csv', true).rowCount).toBe(1);
  });
});

// Pieces of tables: the corpus's features, so random mixes reach the rules' corners.
const PIECES = [
  'a',
  'bc',
  'é',
  '名',
  ',',
  ';',
  '\t',
  '|',
  '"',
  '""',
  '"x,y"',
  '"p\nq"',
  '"r\r\ns"',
  '5"',
  ' ',
  '\u00a0',
  '\u3000',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  BOM,
];

describe('the viewer and the counter agree on random tables', () => {
  it('for any mix of the pieces, in any chunking', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }),
        fc.constantFrom<TableKind>('csv', 'tsv'),
        fc.array(fc.nat(240), { maxLength: 8 }),
        (bom, pieces, kind, cuts) => {
          const bytes = encoder.encode((bom ? BOM : '') + pieces.join(''));
          expect(counted(bytes, kind, cuts)).toEqual(shown(bytes, kind));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('for well-formed tables of random shape (ragged rows, blank lines, any line ending)', () => {
    const cell = fc.oneof(
      fc.constantFrom('', 'x', '12', 'a b', '5"'),
      fc
        .array(fc.constantFrom('a', ',', ';', '|', '\t', '\n', '\r\n', '""', ' '), { maxLength: 5 })
        .map((parts) => `"${parts.join('')}"`),
    );
    const row = fc.array(cell, { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(row, fc.constant([] as string[])), { maxLength: 12 }),
        fc.constantFrom(',', ';', '|', '\t'),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        (rows, delimiter, eol, trailing) => {
          const text = rows.map((r) => r.join(delimiter)).join(eol) + (trailing ? eol : '');
          const bytes = encoder.encode(text);
          expect(counted(bytes, 'csv', [3, 17, 40])).toEqual(shown(bytes, 'csv'));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('records come back as Papa Parse reads them, header first', () => {
    expect(parseRecords('a|b\r\n1|"2|3"\r', 'csv')).toEqual([
      ['a', 'b'],
      ['1', '2|3'],
    ]);
  });
});
