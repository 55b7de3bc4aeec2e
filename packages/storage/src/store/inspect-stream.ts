// The one pass every stored byte makes: hash it, count it against the limit, keep the head for
// sniffing and info, and feed the table counter. Bytes flow through untouched, so memory stays at
// one chunk plus the head whatever the file size.
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
    this.hash.update(chunk);
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      // Copy: the producer may reuse its buffer.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    this.observer?.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.digest = this.hash.digest('hex');
    callback();
  }

  /** Valid once the stream has ended. */
  result(): InspectResult {
    if (this.digest === undefined) throw new Error('InspectStream.result() before the stream ended');
    return { size: this.size, sha256: this.digest, head: Buffer.concat(this.headChunks) };
  }
}
