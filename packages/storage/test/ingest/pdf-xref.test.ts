// The page-tree walk on its own: pdf-info falls back to scanning when it fails, which would hide
// a broken xref reader behind a right answer.

import { describe, expect, it } from 'vitest';
import { createByteSource } from '../../src/ingest/byte-source.js';
import { dictOf, type PdfValue } from '../../src/ingest/pdf-syntax.js';
import { openPdfDocument } from '../../src/ingest/pdf-xref.js';
import { buildPdf, type PdfOptions } from './build-pdf.js';
import { KIB } from './harness.js';

async function pageTree(options: PdfOptions): Promise<Map<string, PdfValue> | undefined> {
  const bytes = buildPdf(options).toBuffer();
  const src = createByteSource({
    size: bytes.length,
    head: bytes.subarray(0, 64 * KIB),
    readRange: async (start, end) => bytes.subarray(start, end + 1),
  });
  const text = bytes.toString('latin1');
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  const doc = await openPdfDocument(src, startxref);
  const catalog = dictOf(await doc.resolve(doc.trailer.get('Root')));
  expect(catalog?.get('Type')).toBe('Catalog');
  return dictOf(await doc.resolve(catalog?.get('Pages')));
}

describe('openPdfDocument', () => {
  it.each([
    ['classic table over several read windows', { pages: 20_000, fanout: 50 }, 20_000],
    ['xref stream and object stream', { pages: 20_000, fanout: 50, xref: 'stream' }, 20_000],
    ['an update on a classic table', { pages: 4, updateAddsPages: 2 }, 6],
    ['a classic update on an xref stream', { pages: 4, xref: 'stream', updateAddsPages: 1 }, 5],
  ] as [string, PdfOptions, number][])('resolves the page tree root: %s', async (_label, options, count) => {
    const root = await pageTree(options);
    expect(root?.get('Type')).toBe('Pages');
    expect(root?.get('Count')).toBe(count);
  });
});
