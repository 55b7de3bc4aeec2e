// The streaming base64 encoder: however the bytes are cut into chunks (empty ones, single bytes,
// cuts inside a 3-byte group), the pieces join into exactly the base64 of all the bytes, with
// padding only at the end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Chunks } from '../../src/calls/base64-chunks.js';

async function encode(chunks: Uint8Array[]): Promise<string[]> {
  async function* source() {
    yield* chunks;
  }
  const pieces: string[] = [];
  for await (const piece of base64Chunks(source())) pieces.push(piece);
  return pieces;
}

describe('base64Chunks', () => {
  it('joins into the base64 of the whole, for any cut of any bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }), async (chunks) => {
        const pieces = await encode(chunks);
        const whole = Buffer.concat(chunks);
        expect(pieces.join('')).toBe(whole.toString('base64'));
        // Padding only in the last piece, so a reader may decode each piece but the last alone.
        for (const piece of pieces.slice(0, -1)) {
          expect(piece).not.toContain('=');
          expect(piece.length % 4).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('takes Uint8Array views that are not Buffers, at an offset', async () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 4, 5, 9]);
    const pieces = await encode([backing.subarray(2, 4), backing.subarray(4, 7)]);
    expect(pieces.join('')).toBe(Buffer.from([1, 2, 3, 4, 5]).toString('base64'));
  });

  it('yields nothing for no bytes', async () => {
    expect(await encode([])).toEqual([]);
    expect(await encode([new Uint8Array(0), new Uint8Array(0)])).toEqual([]);
  });
});
