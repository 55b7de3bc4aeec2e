import { buildXlsx, buildZip, type Cell } from '@ferry/test-helpers/build-xlsx';
import { describe, expect, it } from 'vitest';
import { GIB, infoOf, KIB } from './harness.js';

const XLSX = {
  mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  name: 'book.xlsx',
};

function table(rows: number, columns: number): Cell[][] {
  const header = Array.from({ length: columns }, (_, c) => `col ${c + 1}`);
  const body = Array.from({ length: rows - 1 }, (_, r) =>
    Array.from({ length: columns }, (_, c): Cell => (c === 0 ? `row ${r}` : r * columns + c)),
  );
  return [header, ...body];
}

describe('extractInfo: XLSX', () => {
  it('reads the first sheet dimension of a workbook (header row included)', async () => {
    const bytes = buildXlsx({ sheets: [{ name: 'Data', rows: table(100, 4) }] }).toBuffer();
    const run = await infoOf(bytes, XLSX);
    expect(run.info).toEqual({ rows: 100, columns: 4 });
  });

  it('takes the first sheet in tab order, not the first part name, and skips chart sheets', async () => {
    const bytes = buildXlsx({
      sheets: [
        { name: 'Raw', rows: table(50, 3) },
        { name: 'Chart', chart: true },
        { name: 'Summary', rows: table(7, 9) },
      ],
      order: [1, 2, 0],
    }).toBuffer();
    expect((await infoOf(bytes, XLSX)).info).toEqual({ rows: 7, columns: 9 });
  });

  it('handles dimensions that do not start at A1, absolute refs and wide sheets', async () => {
    const cases: [string, { rows: number; columns: number }][] = [
      ['C5:F20', { rows: 16, columns: 4 }],
      ['$A$1:$AB$3', { rows: 3, columns: 28 }],
      ['B2', { rows: 1, columns: 1 }],
      ['A1:XFD1048576', { rows: 1_048_576, columns: 16_384 }],
    ];
    for (const [dimension, expected] of cases) {
      const bytes = buildXlsx({ sheets: [{ name: 'S', rows: [['x']], dimension }] }).toBuffer();
      expect((await infoOf(bytes, XLSX)).info, dimension).toEqual(expected);
    }
  });

  it('reads a workbook with a stub prepended without fixing its offsets (self-extractor style)', async () => {
    const book = buildXlsx({ sheets: [{ name: 'S', rows: table(12, 5) }] }).toBuffer();
    const bytes = Buffer.concat([Buffer.alloc(3000, 0x4d), book]);
    expect((await infoOf(bytes, XLSX)).info).toEqual({ rows: 12, columns: 5 });
  });

  it('reports an empty sheet as 0 × 0', async () => {
    const bytes = buildXlsx({ sheets: [{ name: 'Empty', rows: [] }] }).toBuffer();
    expect((await infoOf(bytes, XLSX)).info).toEqual({ rows: 0, columns: 0 });
  });

  it('inflates only the start of a large sheet', async () => {
    const bytes = buildXlsx({ sheets: [{ name: 'Big', rows: table(60_000, 8) }] }).toBuffer();
    expect(bytes.length).toBeGreaterThan(512 * KIB);
    const run = await infoOf(bytes, XLSX);
    expect(run.info).toEqual({ rows: 60_000, columns: 8 });
    expect(run.bytesRead).toBeLessThan(128 * KIB);
  });

  it('reads a ZIP64 archive whose sheet sits after a 5 GiB stored entry', async () => {
    const sheet = buildXlsx({ sheets: [{ name: 'S', rows: table(12, 5) }] });
    expect((await infoOf(sheet.toBuffer(), XLSX)).info).toEqual({ rows: 12, columns: 5 });
    const forced = buildXlsx({ sheets: [{ name: 'S', rows: table(12, 5) }], zip64: true }).toBuffer();
    expect((await infoOf(forced, XLSX)).info).toEqual({ rows: 12, columns: 5 });
    const huge = buildZip([
      { name: 'xl/media/video.bin', virtualSize: 5 * GIB },
      {
        name: 'xl/worksheets/sheet1.xml',
        data: '<worksheet><dimension ref="A1:C3"/><sheetData><row r="1"/></sheetData></worksheet>',
      },
    ]).toFile();
    const run = await infoOf(huge, XLSX);
    expect(run.info).toEqual({ rows: 3, columns: 3 });
    expect(run.bytesRead).toBeLessThan(256 * KIB);
  });

  it('measures a small sheet from its cells when it has no dimension or a one-cell one over many cells', async () => {
    const missing = buildXlsx({ sheets: [{ name: 'S', rows: table(10, 3), dimension: false }] }).toBuffer();
    expect((await infoOf(missing, XLSX)).info).toEqual({ rows: 10, columns: 3 });
    const stale = buildXlsx({ sheets: [{ name: 'S', rows: table(10, 3), dimension: 'A1' }] }).toBuffer();
    expect((await infoOf(stale, XLSX)).info).toEqual({ rows: 10, columns: 3 });
  });

  it('gives null when a sheet too large to read whole has no dimension', async () => {
    const bytes = buildXlsx({ sheets: [{ name: 'S', rows: table(60_000, 8), dimension: false }] }).toBuffer();
    const run = await infoOf(bytes, XLSX);
    expect(run.info).toBeNull();
    expect(run.bytesRead).toBeLessThan(512 * KIB);
  });

  it('gives null, never a throw, for broken archives', async () => {
    const good = buildXlsx({ sheets: [{ name: 'S', rows: table(5, 2) }] }).toBuffer();
    const eocd = good.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    const cases: [string, Uint8Array][] = [
      [
        'sheet part missing',
        buildXlsx({
          sheets: [{ name: 'S', rows: table(5, 2) }],
          omit: ['xl/worksheets/sheet1.xml'],
        }).toBuffer(),
      ],
      ['only chart sheets', buildXlsx({ sheets: [{ name: 'C', chart: true }] }).toBuffer()],
      ['cut before the central directory', good.subarray(0, Math.floor(good.length / 2))],
      ['directory offset past the end', Buffer.from(good).fill(0xff, eocd + 16, eocd + 20)],
      [
        'sheet data overwritten',
        Buffer.from(good).fill(0x00, 30, good.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))),
      ],
      ['a zip of something else', buildZip([{ name: 'readme.txt', data: 'hello' }]).toBuffer()],
      ['not a zip', Buffer.from('PK but not really')],
    ];
    for (const [label, bytes] of cases) {
      const run = await infoOf(bytes, XLSX);
      expect(run.info, label).toBeNull();
      expect(run.refused, label).toBe(0);
    }
  });

  it('gives null for a deflate bomb instead of inflating it', async () => {
    const bomb = `<worksheet><sheetPr/>${' '.repeat(64 * 1024 * 1024)}<dimension ref="A1:B2"/></worksheet>`;
    const bytes = buildZip([{ name: 'xl/worksheets/sheet1.xml', data: bomb }]).toBuffer();
    const run = await infoOf(bytes, XLSX);
    expect(run.info).toBeNull();
  });
});
