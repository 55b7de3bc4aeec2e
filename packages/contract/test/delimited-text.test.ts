import { describe, expect, it } from 'vitest';
import { detectDelimiter, parseDelimited } from '../src/codecs/delimited-text.js';

describe('parseDelimited', () => {
  it('parses quotes, doubled quotes, newlines in quotes and CRLF', () => {
    const text = 'a,b,c\r\n1,"two, 2","say ""hi"""\r\n3,"multi\nline",\r\n';
    expect(parseDelimited(text, 'csv')).toEqual([
      ['a', 'b', 'c'],
      ['1', 'two, 2', 'say "hi"'],
      ['3', 'multi\nline', ''],
    ]);
  });

  it('keeps a last row without a trailing newline, strips a BOM, and reads TSV', () => {
    expect(parseDelimited('\uFEFFx,y\n1,2', 'csv')).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
    expect(parseDelimited('a\tb\n1\t2\n', 'tsv')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('follows the storage counter where the old viewer did not', () => {
    // A lone \r ends a record, blank lines are no rows, a stray inch mark is data, TSV has no quotes.
    expect(parseDelimited('a,b\r1,2\r\r\n3,4', 'csv')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    expect(parseDelimited('item,size\npipe,5" wide\nnut,1"\n', 'csv')).toEqual([
      ['item', 'size'],
      ['pipe', '5" wide'],
      ['nut', '1"'],
    ]);
    expect(parseDelimited('q\tr\n"a\tb"\tc\n', 'tsv')).toEqual([
      ['q', 'r'],
      ['"a', 'b"', 'c'],
    ]);
  });

  it('parses 100k rows', () => {
    const lines = ['id,name'];
    for (let i = 0; i < 100_000; i++) lines.push(`${i},"row ${i}"`);
    const rows = parseDelimited(lines.join('\n'), 'csv');
    expect(rows).toHaveLength(100_001);
    expect(rows[100_000]).toEqual(['99999', 'row 99999']);
  });
});

describe('detectDelimiter', () => {
  it('is tab for TSV, else the most frequent of , ; tab | outside quotes in the first record', () => {
    expect(detectDelimiter('a,b', 'tsv')).toBe('\t');
    expect(detectDelimiter('a;b;c\n1;2;3', 'csv')).toBe(';');
    expect(detectDelimiter('a,b,c', 'csv')).toBe(',');
    expect(detectDelimiter('a|b|c', 'csv')).toBe('|');
    expect(detectDelimiter('"x;y;z",b\n', 'csv')).toBe(',');
    expect(detectDelimiter('\n\na;b,c;d', 'csv')).toBe(';');
    expect(detectDelimiter('plain', 'csv')).toBe(',');
  });
});
