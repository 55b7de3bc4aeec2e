// Test files for the info extractors without writing GiBs to disk: a ByteWriter builds a file
// from written parts and gaps (zeros nobody stores), and `infoOf` runs extractInfo over it the
// way the FileStore will, with a head of the first 64 KiB and a readRange that records what the
// extractor asked for.

import { partsFile, type VirtualFile } from '@ferry/test-helpers/byte-writer';
import { extractInfo } from '../../src/ingest/file-info.js';
import type { TableCounts } from '../../src/ingest/table-counter.js';

// The byte builders live in @ferry/test-helpers (bench/ingest.ts builds files with them too).
export { ByteWriter, type VirtualFile } from '@ferry/test-helpers/byte-writer';

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;

function bytesFile(bytes: Uint8Array): VirtualFile {
  return partsFile(bytes.length, [{ at: 0, bytes }]);
}

/** A file of `size` bytes holding `head` at the start and `tail` at the end, zeros between. */
export function sparseFile(size: number, head: Uint8Array, tail: Uint8Array): VirtualFile {
  return partsFile(size, [
    { at: 0, bytes: head },
    { at: size - tail.length, bytes: tail },
  ]);
}

export interface InfoRun {
  info: Awaited<ReturnType<typeof extractInfo>>;
  reads: number;
  bytesRead: number;
  largestRead: number;
  /** Ranges the harness refused (negative, empty or huge): always a bug in an extractor. */
  refused: number;
}

export interface InfoOptions {
  mime?: string;
  name?: string;
  table?: TableCounts;
  /** @default 64 KiB */
  headBytes?: number;
}

/** Largest single range the harness will serve; asking for more is a bug in the extractor. */
const MAX_TEST_RANGE = 16 * MIB;

export async function infoOf(file: VirtualFile | Uint8Array, options: InfoOptions = {}): Promise<InfoRun> {
  const source = file instanceof Uint8Array ? bytesFile(file) : file;
  const run: InfoRun = { info: null, reads: 0, bytesRead: 0, largestRead: 0, refused: 0 };
  const head = source.read(0, Math.min(source.size, options.headBytes ?? 64 * KIB) - 1);
  run.info = await extractInfo({
    mime: options.mime ?? 'application/octet-stream',
    name: options.name ?? 'file',
    size: source.size,
    head,
    table: options.table,
    async readRange(start, endInclusive) {
      const length = endInclusive - start + 1;
      if (start < 0 || length <= 0 || length > MAX_TEST_RANGE) {
        run.refused++;
        throw new RangeError(`bad range ${start}..${endInclusive}`);
      }
      run.reads++;
      run.bytesRead += length;
      run.largestRead = Math.max(run.largestRead, length);
      return source.read(start, endInclusive);
    },
  });
  return run;
}
