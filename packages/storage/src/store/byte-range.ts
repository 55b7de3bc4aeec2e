// Byte ranges as HTTP has them (inclusive, `end` clamped to the last byte), checked against the
// file's size before any driver is asked, so a bad range is a clear 416 and never a crash.
import { FerryError } from '@ferry/contract';
import type { BlobDriver, ByteRange } from '../blob/driver.js';

/** Largest range the FileStore reads into memory (for info extraction). */
const MAX_BUFFERED_RANGE = 8 * 1024 * 1024;

export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  const { start, end } = range;
  const bad = (why: string) =>
    new FerryError('E_RANGE_NOT_SATISFIABLE', `Range not satisfiable: ${why}`, {
      start,
      end: end ?? null,
      size,
    });
  if (!Number.isSafeInteger(start) || start < 0) throw bad('start must be an integer >= 0');
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw bad('end must be an integer >= start');
  if (start >= size) throw bad(`start ${start} is past the end of a ${size}-byte file`);
  return { start, end: Math.min(end ?? size - 1, size - 1) };
}

export async function readBlobRange(
  blobs: BlobDriver,
  key: string,
  start: number,
  end: number,
): Promise<Uint8Array> {
  if (end - start + 1 > MAX_BUFFERED_RANGE) {
    throw new RangeError(
      `[ferry/storage] refusing to buffer ${end - start + 1} bytes (max ${MAX_BUFFERED_RANGE})`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.get(key, { start, end })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
