// Random access to a stored file for the info extractors, with a hard budget. Files can be many
// GiB and their bytes are attacker-chosen (a PDF's xref may point anywhere, a zip may claim a huge
// directory), so every extractor reads through this: it serves what the upload's head already
// holds, caches what it fetched, and refuses once the budget is spent instead of following the
// file wherever it leads.

/** Bytes one `extractInfo` call may fetch with `readRange` (all extractors together). */
export const MAX_INFO_READ_BYTES = 4 * 1024 * 1024;
/** `readRange` calls one `extractInfo` call may make. */
const MAX_INFO_READ_CALLS = 256;
/** Small reads are rounded up to this, so walking a chain of small headers stays cheap. */
const MIN_FETCH = 4096;
const MAX_CACHED = 8;

export type ReadRange = (start: number, endInclusive: number) => Promise<Uint8Array>;

export interface ByteSource {
  readonly size: number;
  readonly head: Uint8Array;
  /** `length` bytes from `start`, fewer at the end of the file; throws past the budget. */
  read(start: number, length: number): Promise<Uint8Array>;
}

export interface ByteSourceOptions {
  size: number;
  head: Uint8Array;
  readRange: ReadRange;
  /** @default MAX_INFO_READ_BYTES */
  maxBytes?: number;
  /** @default MAX_INFO_READ_CALLS */
  maxCalls?: number;
}

/** Thrown when an extractor would read more than its budget; extractInfo turns it into null. */
class ReadBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadBudgetError';
  }
}

interface Segment {
  start: number;
  bytes: Uint8Array;
}

export function createByteSource(options: ByteSourceOptions): ByteSource {
  const { size, head, readRange } = options;
  const maxBytes = options.maxBytes ?? MAX_INFO_READ_BYTES;
  const maxCalls = options.maxCalls ?? MAX_INFO_READ_CALLS;
  const cached: Segment[] = [{ start: 0, bytes: head.subarray(0, Math.min(head.length, size)) }];
  let spentBytes = 0;
  let spentCalls = 0;

  function fromCache(start: number, end: number): Uint8Array | undefined {
    for (const segment of cached) {
      if (start >= segment.start && end <= segment.start + segment.bytes.length) {
        return segment.bytes.subarray(start - segment.start, end - segment.start);
      }
    }
    return undefined;
  }

  async function fetch(start: number, end: number): Promise<Uint8Array> {
    const length = end - start;
    if (spentBytes + length > maxBytes || spentCalls + 1 > maxCalls) {
      throw new ReadBudgetError(`info extraction would read more than ${maxBytes} bytes`);
    }
    spentBytes += length;
    spentCalls++;
    const bytes = await readRange(start, end - 1);
    if (!(bytes instanceof Uint8Array)) throw new TypeError('readRange did not return bytes');
    // A short answer means the file is shorter than `size` claims; keep what came.
    const segment = { start, bytes: bytes.subarray(0, length) };
    cached.push(segment);
    // Keep the head (index 0) and the newest few fetches.
    if (cached.length > MAX_CACHED + 1) cached.splice(1, 1);
    return segment.bytes;
  }

  async function read(start: number, length: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 0 || length < 0) {
      throw new RangeError(`bad read ${start}+${length}`);
    }
    const end = Math.min(size, start + length);
    if (start >= end) return new Uint8Array(0);
    const hit = fromCache(start, end);
    if (hit) return hit;
    const fetchEnd = Math.min(size, Math.max(end, start + MIN_FETCH));
    const bytes = await fetch(start, fetchEnd);
    return bytes.subarray(0, end - start);
  }

  return { size, head: cached[0]?.bytes ?? head, read };
}

/** Latin-1 view of bytes: one char per byte, so string offsets are byte offsets. */
export function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}
