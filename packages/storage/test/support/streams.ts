// Stream helpers for storage tests: deterministic pseudo-random bytes (never all zeros, so a
// misplaced or repeated chunk changes the hash), hashing without buffering, and input streams the
// test drives by hand to fail or abort a put at a chosen moment.

import { createCipheriv, createHash } from 'node:crypto';
import { Readable } from 'node:stream';

const MIB = 1024 * 1024;

function cipherFor(seed: number) {
  // AES-CTR over zeros is a fast, seeded keystream: the same seed always gives the same bytes.
  const key = createHash('sha256').update(`ferry-test-seed-${seed}`).digest().subarray(0, 16);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
}

/** `size` pseudo-random bytes in memory; for small and medium blobs. */
export function pseudoRandomBytes(size: number, seed = 1): Buffer {
  return cipherFor(seed).update(Buffer.alloc(size));
}

/** Yields `total` pseudo-random bytes in fresh chunks of `chunkSize`, holding at most one at a time. */
export async function* pseudoRandomChunks(
  total: number,
  options: { seed?: number; chunkSize?: number } = {},
): AsyncGenerator<Buffer> {
  const cipher = cipherFor(options.seed ?? 1);
  const chunkSize = options.chunkSize ?? MIB;
  const zeros = Buffer.alloc(chunkSize);
  for (let left = total; left > 0; left -= chunkSize) {
    yield cipher.update(left >= chunkSize ? zeros : zeros.subarray(0, left));
  }
}

/** A byte stream (not object mode) of the chunks. */
export function streamOf(chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Readable {
  return Readable.from(chunks, { objectMode: false });
}

/** A byte stream of `buffer` in chunks of `chunkSize`, so drivers see a real multi-chunk stream. */
export function streamOfBuffer(buffer: Buffer, chunkSize = 64 * 1024): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < buffer.length; offset += chunkSize) {
    chunks.push(buffer.subarray(offset, offset + chunkSize));
  }
  return streamOf(chunks);
}

export function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex');
}

/** Hashes a stream as it flows; never holds more than one chunk. */
export async function sha256OfStream(
  stream: AsyncIterable<Buffer>,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Reads a whole stream into memory; for small blobs only. */
export async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A stream that yields `chunks` and then fails with `error`, as a dropped upload would. */
export function failingStream(chunks: Buffer[], error: Error): Readable {
  return streamOf(
    (async function* () {
      yield* chunks;
      throw error;
    })(),
  );
}

export interface ControlledStream {
  stream: Readable;
  push(chunk: Buffer): void;
  end(): void;
  fail(error: Error): void;
  /** Resolves once the consumer has taken what was pushed and asks for more. */
  pulled(): Promise<void>;
}

/** An input stream driven by the test: data, end and failure happen exactly when the test says. */
export function createControlledStream(): ControlledStream {
  let wanting = false;
  let waiters: Array<() => void> = [];
  const stream = new Readable({
    read() {
      wanting = true;
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve();
    },
  });
  return {
    stream,
    push(chunk) {
      wanting = false;
      stream.push(chunk);
    },
    end() {
      stream.push(null);
    },
    fail(error) {
      stream.destroy(error);
    },
    pulled() {
      return new Promise((resolve) => {
        if (wanting) resolve();
        else waiters.push(resolve);
      });
    },
  };
}
