// `info` for the catalog: cheap facts about a stored file (rows × columns, pixels, pages) for
// the prompt's file block. Called once the bytes are stored, with the head the FileStore kept
// while streaming and random access to the rest. It never throws and never reads much: whatever
// it cannot tell within MAX_INFO_READ_BYTES is null, because a missing fact only makes the file
// block shorter while a failed or slow upload would be a real fault.

import type { FileInfo } from '@ferry/contract';
import { createByteSource, MAX_INFO_READ_BYTES, type ReadRange } from './byte-source.js';
import { infoKindOf } from './file-kind.js';
import { imageInfo } from './image-info.js';
import { parquetInfo } from './parquet-info.js';
import { pdfInfo } from './pdf-info.js';
import type { TableCounts } from './table-counter.js';
import { xlsxInfo } from './xlsx-info.js';

export interface ExtractInfoInput {
  /** The MIME type the FileStore settled on (sniffed when the claim was generic). */
  mime: string;
  /** The normalized file name; its extension decides for text formats nobody can sniff. */
  name: string;
  /** Total bytes stored. */
  size: number;
  /** The first bytes of the file, up to 64 KiB (all of it when smaller). */
  head: Uint8Array;
  /** Random access to the stored bytes; `endInclusive` as in an HTTP Range. */
  readRange: ReadRange;
  /** What a table counter saw while the file streamed in (CSV/TSV only). */
  table?: TableCounts;
  /** Budget for readRange. @default MAX_INFO_READ_BYTES (4 MiB) */
  maxReadBytes?: number;
}

function validTable(table: TableCounts | undefined): FileInfo | null {
  if (!table) return null;
  const { rows, columns } = table;
  const ok = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  return ok(rows) && ok(columns) ? { rows, columns } : null;
}

async function extract(input: ExtractInfoInput): Promise<FileInfo | null> {
  const kind = infoKindOf(input);
  // A caller that counted the file as a table knows better than an extension.
  if (kind === 'csv' || kind === 'tsv' || (kind === undefined && input.table)) return validTable(input.table);
  if (kind === undefined || !Number.isSafeInteger(input.size) || input.size <= 0) return null;
  const src = createByteSource({
    size: input.size,
    head: input.head,
    readRange: input.readRange,
    maxBytes: input.maxReadBytes ?? MAX_INFO_READ_BYTES,
  });
  switch (kind) {
    case 'image':
      return imageInfo(src);
    case 'pdf':
      return pdfInfo(src);
    case 'parquet':
      return parquetInfo(src);
    case 'xlsx':
      return xlsxInfo(src);
  }
}

/**
 * Cheap content facts for a stored file, or null when it cannot tell. Never throws: corrupt,
 * truncated or hostile files, a failing `readRange` and exhausted read budgets all give null.
 */
export async function extractInfo(input: ExtractInfoInput): Promise<FileInfo | null> {
  try {
    return await extract(input);
  } catch {
    return null;
  }
}
