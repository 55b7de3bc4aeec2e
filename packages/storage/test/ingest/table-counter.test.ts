import { describe, expect, it } from 'vitest';
import { createTableCounter, type TableCounts, type TableKind } from '../../src/ingest/table-counter.js';

const encoder = new TextEncoder();

function feed(kind: TableKind, bytes: Uint8Array, sizes: (i: number) => number): TableCounts | undefined {
  const counter = createTableCounter(kind);
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes(i));
    counter.update(bytes.subarray(at, at + size));
    at += size;
  }
  return counter.result();
}

/** Counts `input` whole, byte by byte and in odd chunk sizes; all must agree. */
function count(kind: TableKind, input: string | Uint8Array): TableCounts | undefined {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  const whole = feed(kind, bytes, () => bytes.length);
  for (const sizes of [() => 1, () => 2, () => 3, (i: number) => (i * 7 + 3) % 11]) {
    expect(feed(kind, bytes, sizes)).toEqual(whole);
  }
  return whole;
}

describe('createTableCounter: CSV', () => {
  it('counts data rows (not the header) and header fields, with or without a final newline', () => {
    expect(count('csv', 'a,b,c\n1,2,3\n4,5,6\n')).toEqual({ rows: 2, columns: 3 });
    expect(count('csv', 'a,b,c\n1,2,3\n4,5,6')).toEqual({ rows: 2, columns: 3 });
  });

  it('treats CRLF, LF and a lone CR as one line ending each', () => {
    expect(count('csv', 'a,b\r\n1,2\r\n3,4\r\n')).toEqual({ rows: 2, columns: 2 });
    expect(count('csv', 'a,b\r1,2\r3,4')).toEqual({ rows: 2, columns: 2 });
    expect(count('csv', 'a,b\r\n1,2\n3,4\r5,6')).toEqual({ rows: 3, columns: 2 });
  });

  it('keeps delimiters and line breaks inside quoted fields, with "" as an escaped quote', () => {
    const csv = 'name,notes\n"Smith, J","line1\nline2 ""quoted""\r\nline3"\nx,"a ""b"", c"\n';
    expect(count('csv', csv)).toEqual({ rows: 2, columns: 2 });
    expect(count('csv', '"a,b","c\nd",e\n1,2,3\n')).toEqual({ rows: 1, columns: 3 });
    expect(count('csv', '"",""\n"",""\n')).toEqual({ rows: 1, columns: 2 });
  });

  it('reads a quote inside an unquoted field as data (a stray inch mark does not eat the file)', () => {
    expect(count('csv', 'size,desc\n5" pipe,ok\n6,x\n')).toEqual({ rows: 2, columns: 2 });
  });

  it('counts an unterminated quoted field as running to the end of the file', () => {
    expect(count('csv', 'a,b\n1,"open\n2,3\n4,5\n')).toEqual({ rows: 1, columns: 2 });
  });

  it('skips a UTF-8 BOM, also when a chunk splits it, so a quoted first header field still parses', () => {
    const bom = Uint8Array.from([0xef, 0xbb, 0xbf]);
    const body = encoder.encode('"id,x",name\n1,a\n2,b\n');
    expect(count('csv', Buffer.concat([bom, body]))).toEqual({ rows: 2, columns: 2 });
    // Bytes that only start like a BOM are data.
    expect(count('csv', Buffer.concat([bom.subarray(0, 2), encoder.encode('a,b\n1,2\n')]))).toEqual({
      rows: 1,
      columns: 2,
    });
  });

  it('skips blank lines, including trailing ones', () => {
    expect(count('csv', '\n\na,b\n1,2\n\n3,4\n\r\n\n')).toEqual({ rows: 2, columns: 2 });
  });

  it('gives undefined for an empty file, a lone BOM or blank lines only; zero rows for a header alone', () => {
    expect(count('csv', '')).toBeUndefined();
    expect(count('csv', Uint8Array.from([0xef, 0xbb, 0xbf]))).toBeUndefined();
    expect(count('csv', '\n\r\n\n')).toBeUndefined();
    expect(count('csv', 'a,b,c')).toEqual({ rows: 0, columns: 3 });
    expect(count('csv', 'a,b,c\r\n')).toEqual({ rows: 0, columns: 3 });
  });

  it('picks the delimiter from the header: ; and tab in .csv files, ties going to the comma', () => {
    expect(count('csv', 'a;b;c\n1;2;3\n"x;y";"2\n";3\n')).toEqual({ rows: 2, columns: 3 });
    expect(count('csv', 'a\tb\n1\t2\n')).toEqual({ rows: 1, columns: 2 });
    expect(count('csv', 'a|b|c|d\n1|2|3|4\n')).toEqual({ rows: 1, columns: 4 });
    expect(count('csv', 'a,b;c\n1,2;3\n')).toEqual({ rows: 1, columns: 2 });
  });

  it('skips a record whose only field is empty: a blank line or "" alone, not a line of spaces', () => {
    expect(count('csv', 'a,b\n""\n1,2\n""')).toEqual({ rows: 1, columns: 2 });
    expect(count('csv', 'a,b\n   \n"" \n')).toEqual({ rows: 1, columns: 2 });
    // `"" ` at the very end: the quote is not the last byte, so it did not close the field.
    expect(count('csv', 'a,b\n"" ')).toEqual({ rows: 1, columns: 2 });
  });

  it('closes a quoted field only before spaces and a delimiter or line break (Papa Parse)', () => {
    expect(count('csv', 'a,b\n"x"  ,y\n"z" \t\r\n')).toEqual({ rows: 2, columns: 2 });
    // `"x"y`: that quote is data, so the field runs on to the quote before the line break.
    expect(count('csv', 'a,b\n"x"y,z\n1,2"\n3,4\n')).toEqual({ rows: 2, columns: 2 });
    // Multi-byte spaces count as spaces, whole or split across chunks; other characters do not.
    expect(count('csv', 'a,b\n"x"\u00a0\u3000,y\n3,4\n')).toEqual({ rows: 2, columns: 2 });
    expect(count('csv', 'a,b\n"x"\u00e9,y\n3,4"\n')).toEqual({ rows: 1, columns: 2 });
  });

  it('handles multi-byte UTF-8 text in fields', () => {
    expect(count('csv', 'ville,名前\nZürich,"日本\n語"\nKöln,é\n')).toEqual({ rows: 2, columns: 2 });
  });

  it('answers mid-stream and keeps counting afterwards', () => {
    const counter = createTableCounter('csv');
    counter.update(encoder.encode('a,b\n1,2\n3,'));
    expect(counter.result()).toEqual({ rows: 2, columns: 2 });
    counter.update(encoder.encode('4\n5,6\n'));
    expect(counter.result()).toEqual({ rows: 3, columns: 2 });
  });

  it('agrees with the generator on random quoted CSV in random chunks', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = ['a', 'b', ',', '"', '\n', '\r\n', ' ', 'é', ';'];
    const field = () => {
      let text = '';
      for (let n = Math.floor(random() * 6); n > 0; n--)
        text += alphabet[Math.floor(random() * alphabet.length)];
      // RFC 4180 writer: quote when needed, double the quotes; keep empty fields as "" so no
      // record is an empty line (a lone "" is one too, so one-column tables get text).
      if (text === '' && columns === 1) text = 'x';
      return /[",\r\n;]/.test(text) || text === '' ? `"${text.replace(/"/g, '""')}"` : text;
    };
    let columns = 1;
    for (let round = 0; round < 200; round++) {
      columns = 1 + Math.floor(random() * 5);
      const rows = Math.floor(random() * 20);
      const eol = random() < 0.5 ? '\n' : '\r\n';
      const lines: string[] = [];
      for (let r = 0; r <= rows; r++) lines.push(Array.from({ length: columns }, field).join(','));
      const text = lines.join(eol) + (random() < 0.5 ? eol : '');
      const bytes = encoder.encode(text);
      const expected = { rows, columns };
      expect(
        feed('csv', bytes, () => bytes.length),
        text,
      ).toEqual(expected);
      expect(
        feed('csv', bytes, () => 1 + Math.floor(random() * 9)),
        text,
      ).toEqual(expected);
    }
  });
});

// Whether these counts follow the rules (Papa Parse as the table viewer runs it) is checked
// against the viewer itself in apps/web/test/table-parse.test.ts; here: chunking changes nothing.
describe('createTableCounter: chunking and garbage', () => {
  it('counts random bytes of the interesting kinds the same in random chunks as whole', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['a', ',', ';', '\t', '|', '"', '"', '\n', '\r', '\r\n', ' ', 'é', '\ufeff', '\u00a0'];
    for (let round = 0; round < 3000; round++) {
      let text = random() < 0.1 ? '\ufeff' : '';
      for (let n = Math.floor(random() * 60); n > 0; n--)
        text += pieces[Math.floor(random() * pieces.length)];
      const bytes = encoder.encode(text);
      for (const kind of ['csv', 'tsv'] as const) {
        expect(
          feed(kind, bytes, () => 1 + Math.floor(random() * 7)),
          JSON.stringify(text),
        ).toEqual(feed(kind, bytes, () => bytes.length));
      }
    }
  });
});

describe('createTableCounter: TSV', () => {
  it('counts tab-separated fields and lines', () => {
    expect(count('tsv', 'a\tb\tc\n1\t2\t3\r\n4\t5\t6')).toEqual({ rows: 2, columns: 3 });
  });

  it('has no quoting (IANA TSV): quotes are data and every line break ends a record', () => {
    expect(count('tsv', 'a\tb\n"x\ty"\t1\n"open\t2\n')).toEqual({ rows: 2, columns: 2 });
    expect(count('tsv', 'a,b\tc\n1,2\t3\n')).toEqual({ rows: 1, columns: 2 });
  });

  it('gives undefined for an empty file', () => {
    expect(count('tsv', '')).toBeUndefined();
  });
});

describe('createTableCounter: throughput (sanity bound, not a benchmark)', () => {
  it('counts 64 MiB of quoted CSV in well under 5 s', () => {
    const line =
      '12345,"Doe, Jane","a ""quoted"" note\nwith a line break",2024-08-27,3.14159,plain text here\r\n';
    const block = encoder.encode(
      `id,name,note,date,value,text\r\n${line.repeat(Math.floor((1 << 20) / line.length))}`,
    );
    const counter = createTableCounter('csv');
    const rowsPerBlock = Math.floor((1 << 20) / line.length);
    const started = performance.now();
    // The same block 64 times: its header line counts as a data row after the first block.
    for (let i = 0; i < 64; i++) counter.update(block);
    const elapsed = performance.now() - started;
    expect(counter.result()).toEqual({ rows: 64 * rowsPerBlock + 63, columns: 6 });
    expect(elapsed).toBeLessThan(5000);
  });
});
