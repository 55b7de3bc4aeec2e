import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvRecords, formatCsvField, parseCsvRecord } from '../../src/lib/csv.js';

async function records(chunks: (string | Uint8Array)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const record of csvRecords(Readable.from(chunks))) out.push(record);
  return out;
}

describe('csvRecords', () => {
  it('splits on LF and CRLF, skips blank lines and drops a BOM', async () => {
    expect(await records(['\uFEFFa,b\r\n1,2\n\n3,4'])).toEqual(['a,b', '1,2', '3,4']);
  });

  it('keeps line breaks inside quoted fields, across chunk boundaries', async () => {
    expect(await records(['a,"x', '\ny"\r', '\nb,c\n'])).toEqual(['a,"x\ny"', 'b,c']);
  });

  it('decodes UTF-8 split between chunks', async () => {
    const bytes = Buffer.from('name\nKöln\n');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(await records([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['name', 'Köln']);
  });
});

describe('parseCsvRecord and formatCsvField', () => {
  it('unquotes fields with commas, doubled quotes and line breaks', () => {
    expect(parseCsvRecord('1,"a, b","say ""hi""","x\ny",')).toEqual(['1', 'a, b', 'say "hi"', 'x\ny', '']);
  });

  it('round-trips what it quotes', () => {
    const fields = ['plain', 'a,b', 'q"uote', 'line\nbreak'];
    expect(parseCsvRecord(fields.map(formatCsvField).join(','))).toEqual(fields);
    expect(formatCsvField('plain')).toBe('plain');
  });
});
