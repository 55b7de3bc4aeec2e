// InspectStream hashes each chunk in a microtask after passing it on (so a file source's next read
// runs while this thread hashes): the digest must still cover every byte, in order, however the
// chunks arrive, and a refused stream must end with the limit's error and no digest.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { InspectStream } from '../../src/store/inspect-stream.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const limitError = (size: number) => new Error(`too large: ${size}`);

/** Pipes `source` through a new InspectStream into a sink; returns the bytes the sink got. */
async function inspect(source: Readable, limit = Number.MAX_SAFE_INTEGER) {
  const inspector = new InspectStream(limit, limitError);
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback();
    },
  });
  await pipeline(source, inspector, sink);
  return { result: inspector.result(), received: Buffer.concat(received) };
}

describe('InspectStream', () => {
  it('hashes every chunk in order when many arrive in one tick', async () => {
    const chunks = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 7919) % 5000)));
    const whole = Buffer.concat(chunks);
    // Readable.from hands over its chunks back to back, without a read in between.
    const { result, received } = await inspect(Readable.from(chunks));
    expect(received.equals(whole)).toBe(true);
    expect(result).toMatchObject({ size: whole.length, sha256: sha256(whole) });
    expect(result.head.equals(whole.subarray(0, 64 * 1024))).toBe(true);
  });

  it('hashes a file read in small pieces, each chunk hashed after its next read was asked for', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-inspect-'));
    try {
      const path = join(dir, 'source.bin');
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      await writeFile(path, bytes);
      const { result, received } = await inspect(createReadStream(path, { highWaterMark: 16 * 1024 }));
      expect(received.equals(bytes)).toBe(true);
      expect(result).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an empty stream has the digest of no bytes', async () => {
    const { result } = await inspect(Readable.from([]));
    expect(result).toMatchObject({ size: 0, sha256: sha256(Buffer.alloc(0)) });
  });

  it('a stream over the limit fails with the limit error and yields no digest', async () => {
    const inspector = new InspectStream(1000, limitError);
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    await expect(
      pipeline(Readable.from([randomBytes(600), randomBytes(600)]), inspector, sink),
    ).rejects.toThrow('too large: 1200');
    expect(() => inspector.result()).toThrow('before the stream ended');
  });
});
