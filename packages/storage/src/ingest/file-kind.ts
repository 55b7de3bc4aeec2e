// Which extractor a file goes to. Magic bytes win where they are unambiguous (a PNG named
// `.csv` is still a PNG); then the MIME type the FileStore settled on (sniffed by file-type when
// the claim was generic); then the name's extension, which is all there is for text formats
// such as CSV and SVG that file-type cannot sniff.

import { latin1, startsWith } from './byte-source.js';
import type { TableKind } from './table-counter.js';

export type InfoKind = TableKind | 'image' | 'pdf' | 'parquet' | 'xlsx';

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const PAR1 = [0x50, 0x41, 0x52, 0x31];
const IMAGE_MAGIC: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF8
  [0x49, 0x49, 0x2a, 0x00], // TIFF little-endian
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF big-endian
  [0x49, 0x49, 0x2b, 0x00], // BigTIFF little-endian
  [0x4d, 0x4d, 0x00, 0x2b], // BigTIFF big-endian
];

const BY_MIME: Record<string, InfoKind> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/pdf': 'pdf',
  'application/vnd.apache.parquet': 'parquet',
  'application/x-parquet': 'parquet',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.template': 'xlsx',
  'application/vnd.ms-excel.sheet.macroenabled.12': 'xlsx',
};

const BY_EXTENSION: Record<string, InfoKind> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  pdf: 'pdf',
  parquet: 'parquet',
  pq: 'parquet',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  xltx: 'xlsx',
};

const IMAGE_EXTENSIONS = new Set(
  'png apng jpg jpeg jpe jfif gif webp bmp dib tif tiff svg ico cur avif heic heif jxl psd tga'.split(' '),
);

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot + 1).toLowerCase();
}

function byMagic(head: Uint8Array): InfoKind | undefined {
  if (startsWith(head, PDF_MAGIC)) return 'pdf';
  if (startsWith(head, PAR1)) return 'parquet';
  if (IMAGE_MAGIC.some((magic) => startsWith(head, magic))) return 'image';
  // RIFF....WEBP
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) {
    return 'image';
  }
  return undefined;
}

/** The extractor for a file, or undefined when none applies. */
export function infoKindOf(input: { mime: string; name: string; head: Uint8Array }): InfoKind | undefined {
  const magic = byMagic(input.head);
  if (magic) return magic;
  const mime = input.mime.split(';')[0]?.trim().toLowerCase() ?? '';
  const fromMime = BY_MIME[mime];
  if (fromMime) return fromMime;
  if (mime.startsWith('image/')) return 'image';
  const extension = extensionOf(input.name);
  const fromName = BY_EXTENSION[extension];
  if (fromName) return fromName;
  if (IMAGE_EXTENSIONS.has(extension)) return 'image';
  // PDF readers accept the header anywhere in the first KiB (some files carry junk before it);
  // that is weak evidence, so it comes last.
  return latin1(input.head.subarray(0, 1024)).includes('%PDF-') ? 'pdf' : undefined;
}

/**
 * Whether to run a table counter (`createTableCounter`) over an upload, decided before its bytes
 * arrive: by MIME type, then by extension (CSV is often claimed as text/plain or octet-stream).
 */
export function tableKindOf(input: { mime: string; name: string }): TableKind | undefined {
  const kind = infoKindOf({ ...input, head: new Uint8Array(0) });
  return kind === 'csv' || kind === 'tsv' ? kind : undefined;
}
