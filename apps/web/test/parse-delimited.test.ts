import { describe, expect, it } from 'vitest';
import { detectDelimiter, parseDelimited } from '../src/lib/parse-delimited';

describe('parseDelimited', () => {
  it('parses quotes, doubled quotes, newlines in quotes and CRLF', () => {
    const text = 'a,b,c\r\n1,"two, 2","say ""hi"""\r\n3,"multi\nline",\r\n';
    expect(parseDelimited(text)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'two, 2', 'say "hi"'],
      ['3', 'multi\nline', ''],
    ]);
  });

  it('keeps a last row without a trailing newline, strips a BOM, and reads TSV', () => {
    expect(parseDelimited('\uFEFFx,y\n1,2')).toEqual([
      ['x', 'y'],
      ['1', '2'],
    ]);
    expect(parseDelimited('a\tb\n1\t2\n', '\t')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('parses 100k rows quickly', () => {
    const lines = ['id,name'];
    for (let i = 0; i < 100_000; i++) lines.push(`${i},"row ${i}"`);
    const started = performance.now();
    const rows = parseDelimited(lines.join('\n'));
    expect(rows).toHaveLength(100_001);
    expect(rows[100_000]).toEqual(['99999', 'row 99999']);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('detectDelimiter', () => {
  it('uses the name or type for TSV and the first line otherwise', () => {
    expect(detectDelimiter('a.tsv', 'text/plain', 'a,b')).toBe('\t');
    expect(detectDelimiter('a.csv', 'text/csv', 'a;b;c\n1;2;3')).toBe(';');
    expect(detectDelimiter('a.csv', 'text/csv', 'a,b,c')).toBe(',');
  });
});
