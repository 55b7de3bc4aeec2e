// Bridges the FileStore's single streaming pass to the info extractors: CSV/TSV rows are counted
// while the bytes flow (the file is never read twice), everything else is read from the head or
// with a few bounded range reads after the blob is stored.
import { type FileInfo, OCTET_STREAM } from '@ferry/contract';
import { extractInfo } from '../ingest/file-info.js';
import { tableKindOf } from '../ingest/file-kind.js';
import { createTableCounter } from '../ingest/table-counter.js';
import type { ChunkObserver } from './inspect-stream.js';

export interface InfoInput {
  mime: string;
  name: string;
  size: number;
  head: Uint8Array;
  readRange(start: number, endInclusive: number): Promise<Uint8Array>;
}

export interface InfoCollector {
  observer?: ChunkObserver;
  /** Never throws: a file whose info cannot be read cheaply has none. */
  info(input: InfoInput): Promise<FileInfo | null>;
}

export function createInfoCollector(claimedMime: string | undefined, name: string): InfoCollector {
  const kind = tableKindOf({ mime: claimedMime ?? OCTET_STREAM, name });
  const counter = kind ? createTableCounter(kind) : undefined;
  return {
    ...(counter ? { observer: counter } : {}),
    info: async (input) => {
      const table = counter?.result();
      return extractInfo({ ...input, ...(table ? { table } : {}) }).catch(() => null);
    },
  };
}
