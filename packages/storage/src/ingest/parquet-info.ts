// Rows and columns of a Parquet file from its footer: the file ends with the Thrift-encoded
// FileMetaData, its length (4 bytes, little-endian) and `PAR1`. Only that footer is read and
// hyparquet decodes it; no column data is touched.

import { parquetMetadata } from 'hyparquet';
import type { ByteSource } from './byte-source.js';
import type { TableCounts } from './table-counter.js';

/**
 * Footers larger than this are not read. Wide tables with many row groups have footers of a few
 * hundred KiB; the budget of one extractInfo call caps it anyway.
 */
const MAX_PARQUET_FOOTER_BYTES = 3 * 1024 * 1024;

const PAR1 = 0x31524150; // "PAR1" read as little-endian uint32

export async function parquetInfo(src: ByteSource): Promise<TableCounts | null> {
  // Smallest possible file: PAR1, an empty footer of at least a byte, its length, PAR1.
  if (src.size < 13) return null;
  const tail = await src.read(src.size - 8, 8);
  if (tail.length !== 8) return null;
  const view = new DataView(tail.buffer, tail.byteOffset, 8);
  if (view.getUint32(4, true) !== PAR1) return null;
  const footerLength = view.getUint32(0, true);
  if (footerLength === 0 || footerLength > MAX_PARQUET_FOOTER_BYTES || footerLength > src.size - 12) {
    return null;
  }
  const footer = await src.read(src.size - 8 - footerLength, footerLength);
  if (footer.length !== footerLength) return null;
  // hyparquet wants the footer followed by its 8-byte trailer.
  const buffer = new Uint8Array(footerLength + 8);
  buffer.set(footer);
  buffer.set(tail, footerLength);
  const metadata = parquetMetadata(buffer, { geoparquet: false });
  const rows = Number(metadata.num_rows);
  // schema[0] is the root; its children are the top-level columns (a struct counts as one).
  const root = metadata.schema[0];
  const columns = root?.num_children ?? metadata.schema.length - 1;
  if (!Number.isSafeInteger(rows) || rows < 0 || !Number.isSafeInteger(columns) || columns < 0) return null;
  return { rows, columns };
}
