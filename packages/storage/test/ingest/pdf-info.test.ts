import { describe, expect, it } from 'vitest';
import { buildPdf } from './build-pdf.js';
import { GIB, infoOf, KIB, MIB } from './harness.js';

const PDF = { mime: 'application/pdf', name: 'doc.pdf' };

describe('extractInfo: PDF page count', () => {
  it.each([1, 3, 10, 11, 137])('classic xref table, %i pages', async (pages) => {
    const run = await infoOf(buildPdf({ pages }).toBuffer(), PDF);
    expect(run.info).toEqual({ pages });
  });

  it.each([1, 25, 400])('xref stream with the page tree in an object stream, %i pages', async (pages) => {
    const run = await infoOf(buildPdf({ pages, xref: 'stream' }).toBuffer(), PDF);
    expect(run.info).toEqual({ pages });
  });

  it('reads xref tables and streams larger than the first read window (20,000 pages)', async () => {
    // 40,000 objects: an 800 KB classic table, read in growing windows.
    for (const xref of ['table', 'stream'] as const) {
      const run = await infoOf(buildPdf({ pages: 20_000, fanout: 50, xref }).toBuffer(), PDF);
      expect(run.info, xref).toEqual({ pages: 20_000 });
    }
  });

  it('walks trailer, catalog and page tree of a 4 GiB file with a few small reads', async () => {
    for (const xref of ['table', 'stream'] as const) {
      const file = buildPdf({ pages: 250, xref, padding: 4 * GIB }).toFile();
      const run = await infoOf(file, PDF);
      expect(run.info, xref).toEqual({ pages: 250 });
      expect(run.bytesRead, xref).toBeLessThan(256 * KIB);
      expect(run.refused).toBe(0);
    }
  });

  it('follows /Prev: an incremental update that adds pages wins over the original tree', async () => {
    for (const xref of ['table', 'stream'] as const) {
      const run = await infoOf(buildPdf({ pages: 12, xref, updateAddsPages: 3 }).toBuffer(), PDF);
      expect(run.info, xref).toEqual({ pages: 15 });
    }
  });

  it('takes /N of a linearization dictionary from the head when /L matches the file length', async () => {
    const file = buildPdf({ pages: 42, linearized: 'exact', padding: 10 * MIB }).toFile();
    // A head of 1 KiB: the answer must come from the head alone, without any read.
    const run = await infoOf(file, { ...PDF, headBytes: KIB });
    expect(run.info).toEqual({ pages: 42 });
    expect(run.reads).toBe(0);
  });

  it('ignores a stale linearization dictionary (file changed after linearizing)', async () => {
    const run = await infoOf(
      buildPdf({ pages: 42, linearized: 'stale', updateAddsPages: 2 }).toBuffer(),
      PDF,
    );
    expect(run.info).toEqual({ pages: 44 });
  });

  it('falls back to scanning for the page tree when startxref points nowhere', async () => {
    const bytes = buildPdf({ pages: 30 }).toBuffer();
    const text = bytes.toString('latin1');
    const at = text.lastIndexOf('startxref\n') + 'startxref\n'.length;
    bytes.write('0000000001', at, 'latin1');
    expect((await infoOf(bytes, PDF)).info).toEqual({ pages: 30 });
  });

  it('reads the xref stream itself when startxref is wrong or gone (page tree in object streams)', async () => {
    const bytes = buildPdf({ pages: 25, xref: 'stream' }).toBuffer();
    const text = bytes.toString('latin1');
    const wrong = Buffer.from(bytes);
    wrong.write('0000000001', text.lastIndexOf('startxref\n') + 'startxref\n'.length, 'latin1');
    expect((await infoOf(wrong, PDF)).info).toEqual({ pages: 25 });
    const gone = bytes.subarray(0, text.lastIndexOf('startxref'));
    expect((await infoOf(gone, PDF)).info).toEqual({ pages: 25 });
  });

  it('counts offsets from the %PDF- header when junk comes before it', async () => {
    const junk = Buffer.from('Content-Type: application/pdf\r\n\r\n'.repeat(20));
    for (const xref of ['table', 'stream'] as const) {
      const bytes = Buffer.concat([junk, buildPdf({ pages: 8, xref }).toBuffer()]);
      expect((await infoOf(bytes, PDF)).info, xref).toEqual({ pages: 8 });
    }
  });

  it('stays bounded on a tail full of fake xref sections', async () => {
    const real = buildPdf({ pages: 3, xref: 'stream' }).toBuffer();
    const fake = '\nxref\n0 1\n1 0 obj << /Type /XRef /W [1 1 1] /Length 99999 >> stream\n'.repeat(20_000);
    const bytes = Buffer.concat([real.subarray(0, real.lastIndexOf('startxref')), Buffer.from(fake)]);
    const started = performance.now();
    const run = await infoOf(bytes, PDF);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(run.info).toBeNull();
    expect(run.bytesRead).toBeLessThanOrEqual(4 * MIB);
  });

  it('finds the root among hundreds of tree nodes when scanning', async () => {
    const bytes = buildPdf({ pages: 6_000, fanout: 6 }).toBuffer();
    const text = bytes.toString('latin1');
    bytes.write('9', text.lastIndexOf('startxref\n') + 'startxref\n'.length, 'latin1');
    expect((await infoOf(bytes, PDF)).info).toEqual({ pages: 6_000 });
  });

  it('falls back to scanning when the xref offsets are wrong', async () => {
    const bytes = buildPdf({ pages: 5 }).toBuffer();
    const text = bytes.toString('latin1');
    const table = text.lastIndexOf('\nxref\n') + 1;
    // Shift every entry's offset by rewriting its first digit: the objects are not where it says.
    const broken = text.slice(0, table) + text.slice(table).replace(/^0(\d{9} 00000 n)/gm, '9$1');
    expect((await infoOf(Buffer.from(broken, 'latin1'), PDF)).info).toEqual({ pages: 5 });
  });

  it('gives null, never a throw, for garbage and truncated PDFs', async () => {
    const real = buildPdf({ pages: 8, xref: 'stream' }).toBuffer();
    const cases: [string, Uint8Array][] = [
      ['header then noise', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(5000, 0x5a)])],
      ['header only', Buffer.from('%PDF-1.4\n')],
      ['no header at all', Buffer.from('1 0 obj << /Type /Pages /Count 3 >> endobj')],
      ['object stream cut off', real.subarray(0, Math.floor(real.length / 2))],
      [
        'trailer pointing at itself',
        Buffer.from(
          '%PDF-1.4\nxref\n0 1\n0000000000 65535 f\r\ntrailer\n<< /Root 1 0 R /Prev 9 >>\nstartxref\n9\n%%EOF\n',
        ),
      ],
      ['deeply nested junk', Buffer.from(`%PDF-1.4\n1 0 obj ${'['.repeat(10_000)}\nstartxref\n9\n%%EOF`)],
    ];
    for (const [label, bytes] of cases) {
      const run = await infoOf(bytes, PDF);
      expect(run.info, label).toBeNull();
      expect(run.refused, label).toBe(0);
    }
  });

  it('does not hang on an object stream whose /Length points into itself', async () => {
    // Object 1 (the catalog) is packed in that very object stream.
    const bytes = buildPdf({ pages: 3, xref: 'stream', objectStreamLength: '1 0 R' }).toBuffer();
    expect((await infoOf(bytes, PDF)).info).toBeNull();
  });

  it('stays within the read budget on a huge PDF whose xref is garbage', async () => {
    const file = buildPdf({ pages: 3, padding: 8 * GIB }).toFile();
    // Zeros after the padding, where the page tree, xref and trailer should be.
    const zeroedTail = (start: number, endInclusive: number) => {
      const bytes = file.read(start, endInclusive);
      if (endInclusive >= 8 * GIB) bytes.fill(0, Math.max(0, 8 * GIB - start));
      return bytes;
    };
    const run = await infoOf({ size: file.size, read: zeroedTail }, PDF);
    expect(run.info).toBeNull();
    expect(run.bytesRead).toBeLessThanOrEqual(4 * MIB);
  });
});
