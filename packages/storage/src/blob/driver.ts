import type { Readable } from 'node:stream';

/** Inclusive byte range, as in HTTP `Range: bytes=start-end`; `end` defaults to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStat {
  size: number;
}

export interface BlobPutOptions {
  /** Stored as object metadata where the backend has it (S3 Content-Type). */
  contentType?: string;
  /** Aborting rejects the put and removes every partial byte. */
  signal?: AbortSignal;
}

/**
 * Where file bytes live. Keys are opaque (`users/<owner-id>/<file-id>`), chosen by the FileStore,
 * never derived from user-typed names; drivers never see owners or file names.
 *
 * Contract every driver keeps (checked by test/blob/driver-suite.ts):
 * - `put` is atomic: until it resolves, `get`/`stat` of the key see the previous state; if the
 *   input stream errors or the signal aborts, it rejects and leaves no partial bytes anywhere.
 * - `get` streams; it never buffers the whole blob. A missing key rejects with code 'ENOENT'.
 * - `delete` of a missing key succeeds (idempotent).
 */
export interface BlobDriver {
  readonly name: string;
  put(key: string, body: Readable, options?: BlobPutOptions): Promise<{ size: number }>;
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobStat | null>;
  delete(key: string): Promise<void>;
  /** Keys under a prefix (for orphan sweeps). */
  list?(prefix: string): AsyncIterable<string>;
  /** Removes leftovers of interrupted puts (temp files, unfinished multipart uploads) older than `olderThanMs`. */
  sweepPartials?(olderThanMs: number): Promise<number>;
  close?(): Promise<void>;
}
