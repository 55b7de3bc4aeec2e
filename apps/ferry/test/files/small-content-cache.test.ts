// The small-file cache of the download route: what it keeps, what it drops, and that a deleted
// file is not served from it (the row is read first, for every request).
import { Readable } from 'node:stream';
import type { FileRecord } from '@ferry/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmallContentCache } from '../../src/files/small-content-cache.js';
import { http, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';

function fileOf(bytes: Buffer, blobKey: string, sha256 = 'a'.repeat(64)): FileRecord {
  return { blobKey, sha256, size: bytes.length } as FileRecord;
}

/** A read that counts how often it ran. */
function reader(bytes: Buffer) {
  const calls = { count: 0 };
  const read = async () => {
    calls.count += 1;
    return Readable.from([bytes.subarray(0, 3), bytes.subarray(3)]);
  };
  return { calls, read };
}

describe('createSmallContentCache', () => {
  it('reads a file once, then answers from memory', async () => {
    const cache = createSmallContentCache();
    const bytes = Buffer.from('hello, small file');
    const { calls, read } = reader(bytes);
    expect(await cache.bytesOf(fileOf(bytes, 'k1'), read)).toEqual(bytes);
    expect(await cache.bytesOf(fileOf(bytes, 'k1'), read)).toEqual(bytes);
    expect(calls.count).toBe(1);
    expect(cache.totalBytes).toBe(bytes.length);
  });

  it('misses when the row names other bytes (another digest) under the same key', async () => {
    const cache = createSmallContentCache();
    const bytes = Buffer.from('first');
    const { calls, read } = reader(bytes);
    await cache.bytesOf(fileOf(bytes, 'k1', 'a'.repeat(64)), read);
    await cache.bytesOf(fileOf(bytes, 'k1', 'b'.repeat(64)), read);
    expect(calls.count).toBe(2);
  });

  it('keeps nothing over maxEntryBytes and drops the least recently used past maxTotalBytes', async () => {
    const cache = createSmallContentCache({ maxEntryBytes: 8, maxTotalBytes: 16 });
    const big = Buffer.alloc(9, 1);
    const big1 = reader(big);
    await cache.bytesOf(fileOf(big, 'big'), big1.read);
    await cache.bytesOf(fileOf(big, 'big'), big1.read);
    expect(big1.calls.count).toBe(2);
    expect(cache.totalBytes).toBe(0);

    const [a, b, c] = ['a', 'b', 'c'].map((fill) => Buffer.alloc(8, fill)) as [Buffer, Buffer, Buffer];
    const ra = reader(a);
    const rb = reader(b);
    const rc = reader(c);
    await cache.bytesOf(fileOf(a, 'a'), ra.read);
    await cache.bytesOf(fileOf(b, 'b'), rb.read);
    await cache.bytesOf(fileOf(a, 'a'), ra.read); // a is now the most recently used
    await cache.bytesOf(fileOf(c, 'c'), rc.read); // 24 > 16: b goes
    expect(cache.totalBytes).toBe(16);
    await cache.bytesOf(fileOf(a, 'a'), ra.read);
    await cache.bytesOf(fileOf(b, 'b'), rb.read);
    expect(ra.calls.count).toBe(1);
    expect(rb.calls.count).toBe(2);
  });

  it('refuses and forgets a blob whose size is not the row size', async () => {
    const cache = createSmallContentCache();
    const bytes = Buffer.from('short');
    const { calls, read } = reader(bytes);
    const row = { ...fileOf(bytes, 'k'), size: 6 };
    await expect(cache.bytesOf(row, read)).rejects.toThrow(/holds 5 bytes, its row says 6/);
    await expect(cache.bytesOf(row, read)).rejects.toThrow();
    expect(calls.count).toBe(2);
    expect(cache.totalBytes).toBe(0);
  });
});

describe('GET /api/files/{id}/content of a small file', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
  });
  afterAll(async () => t?.close());

  it('answers the same bytes every time, ranges included, and 404 once the file is deleted', async () => {
    const body = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) % 251));
    const stored = await uploadOk(t.url, 'small.bin', body);
    const path = `/api/files/${stored.id}/content`;
    for (let i = 0; i < 3; i++) {
      const whole = await http(t.url, path);
      expect(whole.status).toBe(200);
      expect(whole.headers['content-length']).toBe('4096');
      expect(whole.body.equals(body)).toBe(true);
    }
    const part = await http(t.url, path, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/4096');
    expect(part.body.equals(body.subarray(10, 20))).toBe(true);

    const deleted = await http(t.url, `/api/files/${stored.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await http(t.url, path)).status).toBe(404);
  });
});
