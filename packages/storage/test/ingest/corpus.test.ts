// Ferry's readers of untrusted files against independent ones, on real files written by real
// tools (test/fixtures/ingest-corpus, made by its make-corpus.py). PDFs are opened with pdf.js
// here; images, archives, workbooks, CSV and Parquet are compared with what Pillow, Python's
// zipfile, openpyxl, Python's csv and pyarrow said when the corpus was made (manifest.json). The
// other tests build their inputs with Ferry's own builders; this one catches what those share
// with the readers: the same reading of the format.
//
// Where pdf.js cannot open a damaged PDF, Ferry may still answer, but only with the page count of
// the undamaged file it was made from or qpdf's (which repairs files): never a number no reader
// gives.

import { readFileSync } from 'node:fs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { createByteSource } from '../../src/ingest/byte-source.js';
import { createTableCounter, type TableKind } from '../../src/ingest/table-counter.js';
import { readZipDirectory } from '../../src/ingest/zip-directory.js';
import { infoOf } from './harness.js';

const CORPUS = new URL('../fixtures/ingest-corpus/', import.meta.url);

interface ZipOracle {
  tool: string;
  entries?: {
    name: string;
    method: number;
    compressedSize: number;
    uncompressedSize: number;
    localHeaderOffset: number;
  }[];
  error?: string;
}

interface CorpusFile {
  file: string;
  kind: 'pdf' | 'image' | 'zip' | 'xlsx' | 'csv' | 'tsv' | 'parquet';
  mime: string;
  madeBy: string;
  note: string;
  /** For damaged files: the undamaged corpus file they were made from. */
  derivedFrom?: string;
  oracle?: {
    tool: string;
    pages?: number;
    width?: number;
    height?: number;
    rows?: number;
    columns?: number;
    entries?: ZipOracle['entries'];
    error?: string;
    zip?: ZipOracle;
  };
}

const manifest = JSON.parse(readFileSync(new URL('manifest.json', CORPUS), 'utf8')) as {
  files: CorpusFile[];
};
const ofKind = (...kinds: CorpusFile['kind'][]) =>
  manifest.files.filter((entry) => kinds.includes(entry.kind));
const bytesOf = (entry: CorpusFile) => new Uint8Array(readFileSync(new URL(entry.file, CORPUS)));
const byFile = (file: string) => manifest.files.find((entry) => entry.file === file);
const nameOf = (entry: CorpusFile) => entry.file.slice(entry.file.lastIndexOf('/') + 1);
const label = (entry: CorpusFile) => `${entry.file} (${entry.madeBy}: ${entry.note})`;

/** pdf.js's page count, or null when it cannot open the file either. */
async function pdfjsPages(bytes: Uint8Array): Promise<number | null> {
  // pdf.js takes ownership of the buffer it is given; keep ours.
  const task = getDocument({ data: bytes.slice(), verbosity: 0, isEvalSupported: false });
  try {
    const doc = await task.promise;
    return doc.numPages;
  } catch {
    return null;
  } finally {
    await task.destroy();
  }
}

/** Ferry's zip directory as the oracle lists it. */
async function zipEntries(bytes: Uint8Array) {
  const src = createByteSource({
    size: bytes.length,
    head: bytes.subarray(0, 64 * 1024),
    readRange: async (start, endInclusive) => bytes.subarray(start, endInclusive + 1),
  });
  const entries = await readZipDirectory(src);
  return (
    entries?.map(({ name, method, compressedSize, uncompressedSize, localHeaderOffset }) => ({
      name,
      method,
      compressedSize,
      uncompressedSize,
      localHeaderOffset,
    })) ?? null
  );
}

function expectZipLikeOracle(
  actual: Awaited<ReturnType<typeof zipEntries>>,
  oracle: ZipOracle | undefined,
): void {
  if (oracle?.error !== undefined) {
    expect(actual).toBeNull();
    return;
  }
  const expected = oracle?.entries?.map(
    ({ name, method, compressedSize, uncompressedSize, localHeaderOffset }) => ({
      name,
      method,
      compressedSize,
      uncompressedSize,
      localHeaderOffset,
    }),
  );
  expect(actual).toEqual(expected);
}

describe('ingest corpus', () => {
  it('has every kind of file and stays small', () => {
    const kinds = new Set(manifest.files.map((entry) => entry.kind));
    expect([...kinds].sort()).toEqual(['csv', 'image', 'parquet', 'pdf', 'tsv', 'xlsx', 'zip']);
    const total = manifest.files.reduce((sum, entry) => sum + bytesOf(entry).length, 0);
    expect(total).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('PDF page count: Ferry against pdf.js', () => {
  it.each(ofKind('pdf').map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const bytes = bytesOf(entry);
    const expected = await pdfjsPages(bytes);
    const run = await infoOf(bytes, { mime: entry.mime, name: nameOf(entry) });
    expect(run.refused).toBe(0);
    if (expected !== null) {
      expect(run.info, label(entry)).toEqual({ pages: expected });
      // The two readers agree wherever both open the file (else the corpus needs a look).
      if (entry.oracle?.pages !== undefined) expect(entry.oracle.pages, 'qpdf').toBe(expected);
      return;
    }
    const original = entry.derivedFrom === undefined ? undefined : byFile(entry.derivedFrom);
    const originalPages = original ? await pdfjsPages(bytesOf(original)) : null;
    const allowed = [null, originalPages, entry.oracle?.pages ?? null].map((pages) =>
      pages === null ? null : { pages },
    );
    expect(allowed, label(entry)).toContainEqual(run.info);
  });
});

describe('image size: Ferry against Pillow', () => {
  it.each(ofKind('image').map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const run = await infoOf(bytesOf(entry), { mime: entry.mime, name: nameOf(entry) });
    expect(run.info, label(entry)).toEqual({ width: entry.oracle?.width, height: entry.oracle?.height });
    expect(run.refused).toBe(0);
  });
});

describe('zip central directory: Ferry against Python zipfile', () => {
  it.each(ofKind('zip', 'xlsx').map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const oracle = entry.kind === 'xlsx' ? entry.oracle?.zip : entry.oracle;
    expectZipLikeOracle(await zipEntries(bytesOf(entry)), oracle);
  });
});

describe('workbook rows and columns: Ferry against openpyxl', () => {
  it.each(ofKind('xlsx').map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const run = await infoOf(bytesOf(entry), { mime: entry.mime, name: nameOf(entry) });
    expect(run.info, label(entry)).toEqual({ rows: entry.oracle?.rows, columns: entry.oracle?.columns });
  });
});

describe('CSV and TSV counts: Ferry against Python csv', () => {
  it.each(ofKind('csv', 'tsv').map((entry) => [entry.file, entry] as const))('%s', (_file, entry) => {
    const bytes = bytesOf(entry);
    // Whole, and in chunks of 1000 and 7 bytes, as uploads arrive.
    for (const size of [bytes.length, 1000, 7]) {
      const counter = createTableCounter(entry.kind as TableKind);
      for (let at = 0; at < bytes.length; at += size) counter.update(bytes.subarray(at, at + size));
      expect(counter.result(), `${label(entry)}, chunks of ${size}`).toEqual({
        rows: entry.oracle?.rows,
        columns: entry.oracle?.columns,
      });
    }
  });
});

describe('Parquet rows and columns: Ferry against pyarrow', () => {
  it.each(ofKind('parquet').map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const run = await infoOf(bytesOf(entry), { mime: entry.mime, name: nameOf(entry) });
    expect(run.info, label(entry)).toEqual({ rows: entry.oracle?.rows, columns: entry.oracle?.columns });
  });
});
