// QuotaStream alone, over a fake catalog: every byte passes, in order, and only after the
// reservation that covers it; the blob driver's pace bounds what is held; a refusal stops it.
import { PassThrough, type Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FerryError } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import type { Catalog, Reservation, ReserveRequest } from '../../src/catalog/types.js';
import { createQuotaStream } from '../../src/store/quota-stream.js';
import { pseudoRandomBytes, sha256, streamOfBuffer } from '../support/streams.js';

const MIB = 1024 * 1024;

/** A catalog whose only method is reserve: slow, recording every grant. */
function fakeCatalog(decide: (request: ReserveRequest) => Reservation = () => ({ ok: true }), delayMs = 2) {
  const grants: number[] = [];
  const catalog = {
    async reserve(_owner: string, _id: string, request: ReserveRequest) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const result = decide(request);
      if (result.ok) grants.push(request.bytes);
      return result;
    },
  } as unknown as Catalog;
  return { catalog, grants, granted: () => grants.at(-1) ?? 0 };
}

const quotaStream = (catalog: Catalog, quotaBytes = 1e12) =>
  createQuotaStream({ catalog, owner: 'owner', pendingId: 'pending', quotaBytes });

/** A blob driver stand-in that checks each byte was reserved before it arrived. */
function checkingSink(granted: () => number, delayMs: number) {
  let received = 0;
  const chunks: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      chunks.push(chunk);
      if (received > granted()) callback(new Error(`byte ${received} arrived before it was reserved`));
      else if (delayMs > 0) setTimeout(callback, delayMs);
      else callback();
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

describe('QuotaStream', () => {
  it.each([0, 1, MIB - 1, MIB, MIB + 1, 4 * MIB, 4.5 * MIB + 7])(
    'passes %i bytes whole and in order, each only once reserved',
    async (size) => {
      const input = pseudoRandomBytes(size, size % 97);
      const fake = fakeCatalog();
      const { sink, bytes } = checkingSink(fake.granted, 0);
      await pipeline(streamOfBuffer(input, 64 * 1024), quotaStream(fake.catalog), sink);
      expect(sha256(bytes())).toBe(sha256(input));
      // Exactly what arrived, never ahead of it; the last grant is the whole size.
      expect(fake.grants.at(-1) ?? 0).toBe(size);
      expect(fake.grants.every((bytes, i) => i === 0 || bytes > (fake.grants[i - 1] as number))).toBe(true);
    },
  );

  it('works read through pipe (flowing) and as an async iterator, whatever the consumer’s pace', async () => {
    const input = pseudoRandomBytes(6 * MIB + 3, 5);
    for (const mode of ['pipe', 'iterate'] as const) {
      const fake = fakeCatalog();
      const stream = quotaStream(fake.catalog);
      const feeding = pipeline(streamOfBuffer(input, 64 * 1024), stream);
      const out: Buffer[] = [];
      const source: Transform = mode === 'pipe' ? stream.pipe(new PassThrough()) : stream;
      for await (const chunk of source) {
        out.push(chunk as Buffer);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await feeding;
      expect(sha256(Buffer.concat(out))).toBe(sha256(input));
    }
  });

  it('a slow blob driver holds the input back: what is held stays bounded', async () => {
    const fake = fakeCatalog(() => ({ ok: true }), 0);
    const stream = quotaStream(fake.catalog);
    let produced = 0;
    const { sink } = checkingSink(fake.granted, 2);
    let consumed = 0;
    const source = streamOfBuffer(pseudoRandomBytes(16 * MIB, 6), 64 * 1024);
    source.on('data', (chunk: Buffer) => {
      produced += chunk.length;
    });
    const counting = new PassThrough();
    counting.on('data', (chunk: Buffer) => {
      consumed += chunk.length;
    });
    let maxAhead = 0;
    const timer = setInterval(() => {
      maxAhead = Math.max(maxAhead, produced - consumed);
    }, 1);
    try {
      await pipeline(source, stream, counting, sink);
    } finally {
      clearInterval(timer);
    }
    // Held (2 MiB) plus passed on and not yet read (2 MiB), plus a chunk and the other buffers.
    expect(maxAhead).toBeLessThan(6 * MIB);
  });

  it('a refusal destroys the stream with E_QUOTA_EXCEEDED and nothing beyond the quota passes', async () => {
    const fake = fakeCatalog((request) =>
      request.bytes <= 3 * MIB
        ? { ok: true }
        : { ok: false, storedBytes: MIB, reservedByOthers: 0, reservedBefore: 0 },
    );
    const { sink, bytes } = checkingSink(fake.granted, 0);
    const error = await pipeline(
      streamOfBuffer(pseudoRandomBytes(5 * MIB, 7), 64 * 1024),
      quotaStream(fake.catalog, 4 * MIB),
      sink,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FerryError);
    expect(error).toMatchObject({
      code: 'E_QUOTA_EXCEEDED',
      details: { quota_bytes: 4 * MIB, used_bytes: MIB, reserved_bytes: 0 },
    });
    expect((error as FerryError).message).toMatch(
      /quota of 4 MiB \(4,194,304 bytes\) exceeded: 1 MiB \(1,048,576 bytes\) used/,
    );
    expect(bytes().length).toBeLessThanOrEqual(3 * MIB);
  });

  it('waits for space only when it fits behind the uploads before it', async () => {
    // Refused twice with room behind the others, then granted: it waited instead of failing.
    let refusals = 0;
    const patient = fakeCatalog(() =>
      refusals++ < 2
        ? { ok: false, storedBytes: 0, reservedByOthers: 3 * MIB, reservedBefore: MIB }
        : { ok: true },
    );
    const { sink } = checkingSink(patient.granted, 0);
    await pipeline(streamOfBuffer(pseudoRandomBytes(MIB, 8)), quotaStream(patient.catalog, 3 * MIB), sink);
    expect(refusals).toBe(3);

    // Behind the others it cannot fit: it fails on the first refusal.
    let asked = 0;
    const hopeless = fakeCatalog(() => {
      asked++;
      return { ok: false, storedBytes: 0, reservedByOthers: 3 * MIB, reservedBefore: 2.5 * MIB };
    });
    await expect(
      pipeline(
        streamOfBuffer(pseudoRandomBytes(MIB, 9)),
        quotaStream(hopeless.catalog, 3 * MIB),
        new PassThrough(),
      ),
    ).rejects.toMatchObject({ code: 'E_QUOTA_EXCEEDED' });
    expect(asked).toBe(1);
  });
});
