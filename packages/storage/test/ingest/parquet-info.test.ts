import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { GIB, infoOf, sparseFile } from './harness.js';

const PARQUET = { mime: 'application/vnd.apache.parquet', name: 'table.parquet' };

function salesParquet(rows: number, rowGroupSize?: number): Uint8Array {
  const ids = Array.from({ length: rows }, (_, i) => i);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ids, type: 'INT32' },
        { name: 'region', data: ids.map((i) => ['north', 'south', 'east'][i % 3] ?? ''), type: 'STRING' },
        { name: 'amount', data: ids.map((i) => i * 1.5), type: 'DOUBLE' },
        { name: 'paid', data: ids.map((i) => i % 2 === 0), type: 'BOOLEAN' },
      ],
      rowGroupSize,
    }),
  );
}

describe('extractInfo: Parquet', () => {
  it('reads rows and columns from the footer of a file written by hyparquet-writer', async () => {
    const run = await infoOf(salesParquet(1000), PARQUET);
    expect(run.info).toEqual({ rows: 1000, columns: 4 });
  });

  it('sums rows over row groups (num_rows of the file)', async () => {
    const run = await infoOf(salesParquet(10_000, 1_000), { name: 'x.parquet' });
    expect(run.info).toEqual({ rows: 10_000, columns: 4 });
  });

  it('reads only the footer of a 6 GiB file', async () => {
    const bytes = salesParquet(500);
    // Data pages are never looked at; the footer at the end of a huge file is all it needs.
    const file = sparseFile(6 * GIB, bytes.subarray(0, 4), bytes.subarray(bytes.length - 4096));
    const run = await infoOf(file, PARQUET);
    expect(run.info).toEqual({ rows: 500, columns: 4 });
    expect(run.bytesRead).toBeLessThanOrEqual(8192);
  });

  it('gives null, never a throw, for corrupt or truncated files', async () => {
    const good = salesParquet(100);
    const footerLength = new DataView(good.buffer).getUint32(good.length - 8, true);
    const footerAt = good.length - 8 - footerLength;
    const withFooter = (mutate: (copy: Uint8Array) => void) => {
      const copy = good.slice();
      mutate(copy);
      return copy;
    };
    const cases: [string, Uint8Array][] = [
      ['truncated (no trailing PAR1)', good.subarray(0, good.length - 3)],
      [
        'footer length past the start',
        withFooter((c) => new DataView(c.buffer).setUint32(c.length - 8, c.length, true)),
      ],
      ['footer length zero', withFooter((c) => new DataView(c.buffer).setUint32(c.length - 8, 0, true))],
      ['footer overwritten with 0xFF', withFooter((c) => c.fill(0xff, footerAt, c.length - 8))],
      ['footer overwritten with zeros', withFooter((c) => c.fill(0, footerAt, c.length - 8))],
      ['magic only', Buffer.from('PAR1PAR1')],
      ['text named .parquet', Buffer.from('id,name\n1,x\n')],
    ];
    for (const [label, bytes] of cases) {
      const run = await infoOf(bytes, PARQUET);
      expect(run.info, label).toBeNull();
      expect(run.refused, label).toBe(0);
    }
  });
});
