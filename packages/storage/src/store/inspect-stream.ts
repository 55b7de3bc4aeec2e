// The one pass every stored byte makes: hash it, count it against the limit, keep the head for
// sniffing and info, and feed the table counter. Bytes flow through untouched, so memory stays at
// one chunk plus the head whatever the file size.
//
// The hash of a chunk runs in a microtask after the chunk has been passed on, not inside the
// transform: a source such as a file ReadStream asks for its next chunk in a nextTick after
// handing this one over, and nextTicks run before microtasks, so that read (on libuv's threads)
// is under way while this thread hashes, instead of waiting for the hash. Measured on the 2-core
// VM, busy machine, runs interleaved with hashing inline: bench/storage.ts 1 GiB put median
// 2.31 s against 3.46 s (9 runs each). Hashing in a worker_threads Worker instead (chunks copied
// into SharedArrayBuffers both threads read) was slower on this machine than either, 3.2-3.5 s
// and 2.8-3.1 CPU-s against 2.2 s and 1.65 CPU-s (the same put outside the FileStore): the copies
// and the second thread cost more than the overlap gained on two shared cores.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** Bytes kept from the start of the file: enough for file-type and for image headers. */
const HEAD_BYTES = 64 * 1024;

/** Bytes hashed ahead of the blob driver (see the constructor). */
const INSPECT_BUFFER_BYTES = 4 * 1024 * 1024;

export interface ChunkObserver {
  update(chunk: Uint8Array): void;
}

export interface InspectResult {
  size: number;
  sha256: string;
  head: Buffer;
}

export class InspectStream extends Transform {
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  private size = 0;
  private digest: string | undefined;
  /** Chunks passed on and not hashed yet, in order: at most those of the current tick. */
  private unhashed: Buffer[] = [];

  /**
   * @param limitBytes the stream errors with `onLimit()`'s error as soon as more bytes arrive.
   * @param observer sees every chunk (e.g. the CSV row counter); it must not keep them.
   */
  constructor(
    private readonly limitBytes: number,
    private readonly onLimit: (size: number) => Error,
    private readonly observer?: ChunkObserver,
  ) {
    // Hashing runs on this thread while the blob driver's writes run on libuv's: a few MiB of
    // buffer lets the hash run ahead instead of waiting for each write, so the two overlap.
    super({ readableHighWaterMark: INSPECT_BUFFER_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limitBytes) {
      callback(this.onLimit(this.size));
      return;
    }
    if (this.unhashed.push(chunk) === 1) queueMicrotask(this.hashUnhashed);
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      // Copy: the head is kept to the end, and a view would keep the whole chunk (or the larger
      // buffer it is a slice of) alive with it.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    this.observer?.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.hashUnhashed();
    this.digest = this.hash.digest('hex');
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A stream that failed never yields a digest: the queued chunks need not be hashed.
    this.unhashed = [];
    callback(error);
  }

  /**
   * Hashes the queued chunks, oldest first. The chunks are the very buffers passed on to the blob
   * driver, which only reads them, so the digest is of the bytes stored.
   */
  private readonly hashUnhashed = (): void => {
    const chunks = this.unhashed;
    if (chunks.length === 0) return;
    this.unhashed = [];
    for (const chunk of chunks) this.hash.update(chunk);
  };

  /** Valid once the stream has ended. */
  result(): InspectResult {
    if (this.digest === undefined) throw new Error('InspectStream.result() before the stream ended');
    return { size: this.size, sha256: this.digest, head: Buffer.concat(this.headChunks) };
  }
}
