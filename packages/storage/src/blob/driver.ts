import type { Readable } from 'node:stream';

/** Inclusive byte range, as in HTTP `Range: bytes=start-end`; `end` defaults to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStat {
  size: number;
}

/** A stored blob as a listing sees it: enough to tell a fresh blob from an old one. */
export interface BlobEntry {
  key: string;
  size: number;
  /** When the blob was last written (file mtime, S3 LastModified). */
  modifiedAt: Date;
}

/** The leftover of an interrupted put: a local temp file or an S3 multipart upload never completed. */
export interface BlobPartial {
  /** The temp file's name, or the multipart upload's UploadId. */
  id: string;
  /** The key the put was writing, where the backend knows it (S3 does, a temp file does not). */
  key?: string;
  /** When the put began (multipart Initiated) or last wrote (temp file mtime). */
  startedAt: Date;
  /** Bytes held, where known without extra requests. */
  size?: number;
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
 *   It rejects with the input's own error, or with an `AbortError` for an abort, and destroys
 *   `body` whenever it rejects.
 * - `get` streams; it never buffers the whole blob. A missing key rejects with code 'ENOENT'.
 *   A range rejects with code 'ERANGE' (a RangeError) when start < 0, end < start, either is not
 *   an integer, or start >= size of a non-empty blob; an end past the last byte is clamped, and
 *   any range of an empty blob is an empty stream.
 * - `delete` of a missing key succeeds (idempotent).
 * - Keys are checked by `assertBlobKey` (keys.ts) on every method: segments of `[A-Za-z0-9._-]`
 *   not starting with `.`, joined by single `/`; anything else rejects with code 'EINVAL'.
 * Errors carry these codes through `createBlobError` (errors.ts); test them with `isBlobError`.
 */
export interface BlobDriver {
  readonly name: string;
  put(key: string, body: Readable, options?: BlobPutOptions): Promise<{ size: number }>;
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobStat | null>;
  delete(key: string): Promise<void>;
  /**
   * A cheap real operation on the backend, for readiness probes: resolves when puts can work
   * (local: the root is a writable directory; S3: the bucket answers a one-key listing under the
   * prefix), rejects with the backend's error otherwise. Changes no blob. Aborting rejects it.
   */
  ping(options?: { signal?: AbortSignal }): Promise<void>;
  /** Keys under a prefix (for orphan sweeps). */
  list?(prefix: string): AsyncIterable<string>;
  /** `list` with each blob's size and last write, for consistency checks (maintenance/fsck.ts). */
  listEntries?(prefix: string): AsyncIterable<BlobEntry>;
  /**
   * The leftovers that `sweepPartials(olderThanMs)` would remove, without removing them: what
   * `ferry admin fsck` reports before it repairs.
   */
  listPartials?(olderThanMs: number): AsyncIterable<BlobPartial>;
  /** Removes leftovers of interrupted puts (temp files, unfinished multipart uploads) older than `olderThanMs`. */
  sweepPartials?(olderThanMs: number): Promise<number>;
  close?(): Promise<void>;
}
