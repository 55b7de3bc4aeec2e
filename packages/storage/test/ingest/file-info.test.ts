import { png } from '@ferry/test-helpers/build-images';
import { buildXlsx } from '@ferry/test-helpers/build-xlsx';
import { describe, expect, it } from 'vitest';
import { MAX_INFO_READ_BYTES } from '../../src/ingest/byte-source.js';
import { extractInfo } from '../../src/ingest/file-info.js';
import { infoKindOf, tableKindOf } from '../../src/ingest/file-kind.js';
import { createTableCounter } from '../../src/ingest/table-counter.js';
import { buildPdf } from './build-pdf.js';
import { GIB, infoOf, KIB, MIB, type VirtualFile } from './harness.js';

describe('extractInfo: CSV and TSV', () => {
  it('passes through what the table counter saw while the file streamed in', async () => {
    const bytes = new TextEncoder().encode('region,amount\n"North, upper",1\nSouth,2\n');
    const counter = createTableCounter('csv');
    counter.update(bytes);
    const table = counter.result();
    expect((await infoOf(bytes, { mime: 'text/csv', name: 'sales.csv', table })).info).toEqual({
      rows: 2,
      columns: 2,
    });
    expect((await infoOf(bytes, { mime: 'text/plain', name: 'sales.tsv', table })).info).toEqual(table);
  });

  it('gives null for a CSV without counts (empty file) or with nonsense counts', async () => {
    expect((await infoOf(new Uint8Array(0), { mime: 'text/csv', name: 'a.csv' })).info).toBeNull();
    const table = { rows: -1, columns: 2 };
    expect((await infoOf(new Uint8Array(1), { mime: 'text/csv', name: 'a.csv', table })).info).toBeNull();
  });
});

describe('infoKindOf and tableKindOf', () => {
  const head = new Uint8Array(0);

  it('prefers magic bytes, then the MIME type, then the extension', () => {
    expect(infoKindOf({ mime: 'text/csv', name: 'x.csv', head: png(1, 1) })).toBe('image');
    expect(infoKindOf({ mime: 'application/octet-stream', name: 'x', head: Buffer.from('%PDF-1.7') })).toBe(
      'pdf',
    );
    expect(infoKindOf({ mime: 'application/vnd.apache.parquet', name: 'x', head })).toBe('parquet');
    expect(infoKindOf({ mime: 'image/avif', name: 'x', head })).toBe('image');
    expect(infoKindOf({ mime: 'application/octet-stream', name: 'Book.XLSX', head })).toBe('xlsx');
    expect(infoKindOf({ mime: 'application/zip', name: 'archive.zip', head })).toBeUndefined();
    expect(infoKindOf({ mime: 'text/plain', name: 'notes.txt', head })).toBeUndefined();
    // A PDF header after some junk counts, but only when nothing else says what the file is.
    const junkThenPdf = Buffer.from('junk\n%PDF-1.4\n');
    expect(infoKindOf({ mime: 'application/octet-stream', name: 'x', head: junkThenPdf })).toBe('pdf');
    expect(infoKindOf({ mime: 'text/csv', name: 'x.csv', head: junkThenPdf })).toBe('csv');
  });

  it('tells the FileStore before any byte arrives whether to count rows', () => {
    expect(tableKindOf({ mime: 'text/csv; charset=utf-8', name: 'a' })).toBe('csv');
    expect(tableKindOf({ mime: 'text/plain', name: 'data.csv' })).toBe('csv');
    expect(tableKindOf({ mime: 'application/octet-stream', name: 'data.tsv' })).toBe('tsv');
    expect(tableKindOf({ mime: 'text/tab-separated-values', name: 'data' })).toBe('tsv');
    expect(tableKindOf({ mime: 'application/pdf', name: 'data.csv' })).toBeUndefined();
    expect(tableKindOf({ mime: 'text/plain', name: 'notes.txt' })).toBeUndefined();
  });
});

describe('extractInfo: never throws, never reads much', () => {
  const base = { mime: 'application/pdf', name: 'x.pdf', size: 10, head: Buffer.from('%PDF-1.4\n') };

  it('turns a failing or misbehaving readRange into null', async () => {
    const pdf = buildPdf({ pages: 3, padding: 200 * KIB }).toBuffer();
    const input = { ...base, size: pdf.length, head: pdf.subarray(0, 64 * KIB) };
    const behaviours = [
      async () => {
        throw new Error('disk on fire');
      },
      () => {
        throw new Error('synchronous throw');
      },
      async () => 'not bytes' as unknown as Uint8Array,
      async () => new Uint8Array(0),
    ];
    for (const readRange of behaviours) {
      await expect(extractInfo({ ...input, readRange })).resolves.toBeNull();
    }
  });

  it('survives inputs that lie: size larger than the data, size 0, head longer than size', async () => {
    const bytes = png(10, 10);
    const readRange = async (s: number, e: number) => bytes.subarray(s, e + 1);
    const png10 = { mime: 'image/png', name: 'a.png', head: bytes, readRange };
    await expect(extractInfo({ ...png10, size: 10 * GIB })).resolves.toEqual({ width: 10, height: 10 });
    await expect(extractInfo({ ...png10, size: 0 })).resolves.toBeNull();
    await expect(extractInfo({ ...png10, size: 5 })).resolves.toBeNull();
    await expect(extractInfo({ ...png10, size: Number.NaN })).resolves.toBeNull();
    const pdf = { ...base, head: Buffer.from('%PDF-1.4\n'), readRange, size: 3 * GIB };
    await expect(extractInfo(pdf)).resolves.toBeNull();
  });

  it('reads at most the budget from a 16 GiB file of noise, whatever it claims to be', async () => {
    // Every byte is 0x30 ("0"): digits parse as numbers and offsets forever, nothing ends.
    const noise: VirtualFile = { size: 16 * GIB, read: (s, e) => new Uint8Array(e - s + 1).fill(0x30) };
    const heads: [string, string][] = [
      ['application/pdf', '%PDF-1.7\n'],
      ['application/vnd.apache.parquet', 'PAR1'],
      ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'PK\x03\x04'],
      ['image/jpeg', '\xff\xd8\xff'],
      ['image/tiff', 'II*\0'],
      ['image/heic', ''],
    ];
    for (const [mime, magic] of heads) {
      const file: VirtualFile = {
        size: noise.size,
        read: (s, e) => {
          const bytes = noise.read(s, e);
          if (s === 0) bytes.set(Buffer.from(magic, 'latin1'));
          return bytes;
        },
      };
      const run = await infoOf(file, { mime, name: 'noise' });
      expect(run.info, mime).toBeNull();
      expect(run.bytesRead, mime).toBeLessThanOrEqual(MAX_INFO_READ_BYTES);
      expect(run.refused, mime).toBe(0);
    }
  });

  it('honours a smaller read budget', async () => {
    const file = buildPdf({ pages: 9, padding: GIB }).toFile();
    const head = file.read(0, 64 * KIB - 1);
    const readRange = async (s: number, e: number) => file.read(s, e);
    const input = { ...base, size: file.size, head, readRange };
    await expect(extractInfo(input)).resolves.toEqual({ pages: 9 });
    await expect(extractInfo({ ...input, maxReadBytes: 100 })).resolves.toBeNull();
  });

  it('extracts from every kind over one shared harness (smoke)', async () => {
    const xlsx = buildXlsx({
      sheets: [
        {
          name: 'S',
          rows: [
            ['a', 'b'],
            [1, 2],
          ],
        },
      ],
    }).toBuffer();
    expect((await infoOf(xlsx, { name: 'b.xlsx' })).info).toEqual({ rows: 2, columns: 2 });
    expect((await infoOf(buildPdf({ pages: 2 }).toBuffer(), { name: 'd' })).info).toEqual({ pages: 2 });
    expect((await infoOf(Buffer.alloc(MIB), { name: 'zeros.bin' })).info).toBeNull();
  });
});
