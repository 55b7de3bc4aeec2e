// Upload refusals over real HTTP say what happened in the uploader's terms: the file's real size
// (or "more than" what was counted, when Ferry stopped counting), the limit, both exact and
// readable, and advice for an upload rather than for a tool. Re-uploading the bytes that already
// are the latest version adds nothing.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEASURE_PAST_LIMIT_BYTES } from '../../src/routes/file-upload.js';
import {
  blobFileCount,
  type FileJson,
  type HttpResult,
  http,
  multipartBody,
  rawRequest,
  startTestApp,
  statusOf,
  storedVersions,
  type TestApp,
  upload,
} from '../support/start-app.js';

const MIB = 1024 * 1024;
/** "2.2 MB": what `ls -lh` would show for the file of the issue. */
const SIZE = 2_306_867;

interface Envelope {
  results: { error: string };
  meta_data: { error_code: string; details: Record<string, unknown> };
}

let limited: TestApp;
let quota: TestApp;
beforeAll(async () => {
  [limited, quota] = await Promise.all([
    startTestApp({ storage: { max_file_size_mb: 1 }, servers: {} }),
    startTestApp({ storage: { max_file_size_mb: 8, user_quota_mb: 2 }, servers: {} }),
  ]);
});
afterAll(async () => {
  await Promise.all([limited?.close(), quota?.close()]);
});

function multipart(t: TestApp, filename: string, content: Buffer): Promise<HttpResult> {
  const { body, contentType } = multipartBody([{ filename, content }]);
  return http(t.url, '/api/files', { method: 'POST', headers: { 'content-type': contentType }, body });
}

/** A raw upload in chunked framing (no Content-Length): the server cannot know the size up front. */
function chunked(t: TestApp, name: string, size: number): Promise<string> {
  return rawRequest(
    t.url,
    (socket) => {
      socket.write(
        `POST /api/files?name=${name} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 5);
      let sent = 0;
      const pump = (): void => {
        while (sent < size && !socket.destroyed) {
          const length = Math.min(chunk.length, size - sent);
          sent += length;
          const frame = Buffer.concat([
            Buffer.from(`${length.toString(16)}\r\n`),
            chunk.subarray(0, length),
            Buffer.from('\r\n'),
          ]);
          if (!socket.write(frame)) {
            socket.once('drain', pump);
            return;
          }
        }
        if (!socket.destroyed) socket.write('0\r\n\r\n');
      };
      // The server may answer and close before the whole body is out.
      socket.on('error', () => {});
      pump();
    },
    { timeoutMs: 60_000 },
  );
}

function envelopeOf(raw: string): Envelope {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Envelope;
}

const TOO_LARGE_ADVICE =
  'Split the file into parts of at most 1 MiB, or ask the administrator to raise FERRY_MAX_FILE_SIZE_MB (max_file_size_mb)';

describe('a file over max_file_size_mb', () => {
  it('multipart: the real size of the part, counted past the limit without being stored', async () => {
    const namesBefore = await storedVersions(limited.url);
    const blobsBefore = await blobFileCount(limited);
    const result = await multipart(limited, 'big.bin', Buffer.alloc(SIZE, 1));
    expect(result.status).toBe(413);
    const body = result.json<Envelope>();
    expect(body.meta_data.error_code).toBe('E_FILE_TOO_LARGE');
    expect(body.results.error).toBe(
      '"big.bin" is 2.2 MiB (2,306,867 bytes); the limit is 1 MiB (1,048,576 bytes) per file',
    );
    expect(body.meta_data.details).toEqual({
      name: 'big.bin',
      file_size_bytes: SIZE,
      current_limit_bytes: MIB,
      suggestion: TOO_LARGE_ADVICE,
    });
    expect(await storedVersions(limited.url)).toEqual(namesBefore);
    expect(await blobFileCount(limited)).toBe(blobsBefore);
  });

  it('raw body with Content-Length: refused before reading, with the declared size', async () => {
    const result = await upload(limited.url, 'declared.bin', Buffer.alloc(SIZE, 2));
    expect(result.status).toBe(413);
    const body = result.json<Envelope>();
    expect(body.results.error).toBe(
      '"declared.bin" is 2.2 MiB (2,306,867 bytes); the limit is 1 MiB (1,048,576 bytes) per file',
    );
    expect(body.meta_data.details).toMatchObject({ file_size_bytes: SIZE, suggestion: TOO_LARGE_ADVICE });
  });

  it('raw body in chunks (no Content-Length): the rest is read and counted', async () => {
    const blobsBefore = await blobFileCount(limited);
    const raw = await chunked(limited, 'chunked.bin', SIZE);
    expect(statusOf(raw)).toBe(413);
    const body = envelopeOf(raw);
    expect(body.results.error).toBe(
      '"chunked.bin" is 2.2 MiB (2,306,867 bytes); the limit is 1 MiB (1,048,576 bytes) per file',
    );
    expect(body.meta_data.details).toMatchObject({ file_size_bytes: SIZE, current_limit_bytes: MIB });
    expect(await blobFileCount(limited)).toBe(blobsBefore);
  });

  it('past the counting bound it says "more than" and gives no size it does not know', async () => {
    const bound = MIB + MEASURE_PAST_LIMIT_BYTES;
    const expected = {
      error:
        '"huge.bin" is more than 65 MiB (68,157,440 bytes); the limit is 1 MiB (1,048,576 bytes) per file',
      details: { file_size_bytes: null, file_size_more_than_bytes: bound, current_limit_bytes: MIB },
    };
    const result = await multipart(limited, 'huge.bin', Buffer.alloc(bound + MIB, 3));
    expect(result.status).toBe(413);
    expect(result.json<Envelope>().results.error).toBe(expected.error);
    expect(result.json<Envelope>().meta_data.details).toMatchObject(expected.details);

    const raw = await chunked(limited, 'huge.bin', bound + 2 * MIB);
    expect(statusOf(raw)).toBe(413);
    expect(envelopeOf(raw).results.error).toBe(expected.error);
    expect(envelopeOf(raw).meta_data.details).toMatchObject(expected.details);
  });
});

describe('a file over the storage quota', () => {
  it('names its real size, the quota, what is used and free, with advice for the uploader', async () => {
    await upload(quota.url, 'first.bin', Buffer.alloc(1.5 * MIB, 1)).then((r) => expect(r.status).toBe(201));
    // Refused once 1 MiB of it has arrived (the quota is reserved per MiB); 1.2 MiB in all.
    const size = 1_258_291;
    const expectedError =
      '"second.bin" (1.2 MiB (1,258,291 bytes)) does not fit in your storage quota of 2 MiB (2,097,152 bytes): ' +
      '1.5 MiB (1,572,864 bytes) used, 512 KiB (524,288 bytes) free';
    const advice =
      'Delete files you no longer need from My Files, or ask the administrator to raise your quota (FERRY_USER_QUOTA_MB, user_quota_mb)';
    for (const send of [
      () => multipart(quota, 'second.bin', Buffer.alloc(size, 2)),
      () => upload(quota.url, 'second.bin', Buffer.alloc(size, 2)),
    ]) {
      const result = await send();
      expect(result.status).toBe(507);
      const body = result.json<Envelope>();
      expect(body.meta_data.error_code).toBe('E_QUOTA_EXCEEDED');
      expect(body.results.error).toBe(expectedError);
      expect(body.meta_data.details).toMatchObject({
        name: 'second.bin',
        file_size_bytes: size,
        quota_bytes: 2 * MIB,
        used_bytes: 1.5 * MIB,
        free_bytes: 0.5 * MIB,
        suggestion: advice,
      });
    }
    expect(await storedVersions(quota.url)).toEqual(['first.bin@1']);
  });
});

describe('re-uploading identical content', () => {
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  it('answers with the existing version (unchanged: true) and stores nothing new; other bytes add a version', async () => {
    const bytes = Buffer.from('name,value\nalpha,1\n');
    const first = await upload(limited.url, 'same.csv', bytes);
    expect(first.status).toBe(201);
    const v1 = first.json<{ files: (FileJson & { unchanged?: boolean })[] }>().files[0];
    expect(v1).toMatchObject({ name: 'same.csv', version: 1, sha256: sha256(bytes) });
    expect(v1?.unchanged).toBeUndefined();
    const blobsBefore = await blobFileCount(limited);

    const raw = await upload(limited.url, 'same.csv', bytes);
    const { body, contentType } = multipartBody([{ filename: 'same.csv', content: bytes }]);
    const form = await http(limited.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    for (const again of [raw, form]) {
      expect(again.status).toBe(201);
      expect(again.json<{ files: FileJson[] }>().files).toEqual([{ ...v1, unchanged: true }]);
    }
    expect(await blobFileCount(limited)).toBe(blobsBefore);
    expect((await storedVersions(limited.url)).filter((n) => n.startsWith('same.csv@'))).toEqual([
      'same.csv@1',
    ]);

    const changed = await upload(limited.url, 'same.csv', Buffer.from('name,value\nalpha,2\n'));
    const v2 = changed.json<{ files: (FileJson & { unchanged?: boolean })[] }>().files[0];
    expect(v2).toMatchObject({ name: 'same.csv', version: 2 });
    expect(v2?.unchanged).toBeUndefined();
    expect(await blobFileCount(limited)).toBe(blobsBefore + 1);
  });
});
