// A request body that stops arriving is cut off after server.bodyIdleTimeoutMs without a byte
// (408), whatever route it was for; a slow but steady upload is not, however long it takes; and
// responses the server sends (event streams) are not request bodies, so they stay open.
import { createHash, randomBytes } from 'node:crypto';
import { get, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import { type FileJson, http, multipartBody, startTestApp, type TestApp } from '../support/start-app.js';

const IDLE_MS = 300;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ app: { server: { bodyIdleTimeoutMs: IDLE_MS } }, servers: {} });
});
afterAll(async () => t?.close());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function fileNames(): Promise<string[]> {
  const listed = await http(t.url, '/api/files?allVersions=true&limit=1000');
  return listed.json<{ items: FileJson[] }>().items.map((f) => f.name);
}

interface Stalled {
  /** Everything the server sent. */
  text: string;
  /** Whether the server closed the connection (rather than the test giving up). */
  closedByServer: boolean;
  /** From the last byte the client sent to the close. */
  elapsedMs: number;
}

/** Sends `head` and `body`, then nothing more, and waits for the server to close the socket. */
function sendAndStall(head: string, body: Buffer | string, giveUpMs = 20 * IDLE_MS): Promise<Stalled> {
  return new Promise((resolve) => {
    let text = '';
    let sentAt = 0;
    let closedByServer = true;
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => {
      socket.write(head);
      socket.write(body, () => {
        sentAt = performance.now();
      });
    });
    const giveUp = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text, closedByServer, elapsedMs: performance.now() - sentAt });
    });
  });
}

function expectCutOff(stalled: Stalled): void {
  expect(stalled.closedByServer).toBe(true);
  expect(stalled.elapsedMs).toBeGreaterThanOrEqual(IDLE_MS - 20);
  expect(stalled.elapsedMs).toBeLessThan(IDLE_MS + 2000);
  if (stalled.text !== '') {
    expect(stalled.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(stalled.text.toLowerCase()).toContain('connection: close');
    const body = stalled.text.slice(stalled.text.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({
      meta_data: { is_error: true, error_code: 'E_INVALID_INPUT', details: { field: 'body' } },
    });
  }
}

describe('a request body that stalls', () => {
  it('a raw upload that stops halfway: 408, the connection closes, nothing is stored', async () => {
    const stalled = await sendAndStall(
      'POST /api/files?name=stalled.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n',
      Buffer.alloc(40_000, 1),
    );
    expectCutOff(stalled);
    expect(stalled.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(await fileNames()).not.toContain('stalled.bin');
  });

  it('a chunked upload that stops between chunks', async () => {
    const stalled = await sendAndStall(
      'POST /api/files?name=chunked-stall.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n',
      `400\r\n${'x'.repeat(0x400)}\r\n`,
    );
    expectCutOff(stalled);
    expect(await fileNames()).not.toContain('chunked-stall.bin');
  });

  it('a multipart upload that stops inside its second file', async () => {
    const { body, contentType } = multipartBody([
      { filename: 'first.txt', content: 'complete' },
      { filename: 'second.bin', content: Buffer.alloc(50_000, 2) },
    ]);
    // The request is all or nothing: once it aborts, the route deletes the file it had stored.
    const files = t.storage.files;
    const remove = files.delete.bind(files);
    let undone: (id: string) => void = () => undefined;
    const firstDeleted = new Promise<string>((resolve) => {
      undone = resolve;
    });
    const spy = vi.spyOn(files, 'delete').mockImplementation(async (owner, id, ...rest) => {
      const result = await remove(owner, id, ...rest);
      undone(id);
      return result;
    });
    try {
      const stalled = await sendAndStall(
        `POST /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
        body.subarray(0, body.length - 10_000),
      );
      expectCutOff(stalled);
      await firstDeleted;
    } finally {
      spy.mockRestore();
    }
    const names = await fileNames();
    expect(names).not.toContain('first.txt');
    expect(names).not.toContain('second.bin');
  });

  it('a JSON body that never arrives (headers only)', async () => {
    const stalled = await sendAndStall(
      'POST /api/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n',
      '',
    );
    expectCutOff(stalled);
    expect(stalled.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('Ferry keeps answering afterwards', async () => {
    expect((await http(t.url, '/api/me')).status).toBe(200);
  });
});

/** Uploads `bytes` in `chunkSize` pieces, one every `everyMs`; resolves with the response. */
function throttledUpload(name: string, bytes: Buffer, chunkSize: number, everyMs: number) {
  return new Promise<{ status: number; json: { files: FileJson[] } }>((resolve, reject) => {
    const request = httpRequest(
      new URL(`/api/files?name=${encodeURIComponent(name)}`, t.url),
      {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'content-length': bytes.length },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    void (async () => {
      for (let offset = 0; offset < bytes.length; offset += chunkSize) {
        if (offset > 0) await delay(everyMs);
        request.write(bytes.subarray(offset, offset + chunkSize));
      }
      request.end();
    })();
  });
}

describe('a slow but steady upload', () => {
  it('3 MB, 64 KiB every 50 ms (far longer than the idle timeout): stored whole', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const started = performance.now();
    const result = await throttledUpload('steady.bin', bytes, 64 * 1024, 50);
    expect(performance.now() - started).toBeGreaterThan(5 * IDLE_MS);
    expect(result.status).toBe(201);
    const file = result.json.files[0] as FileJson;
    expect(file).toMatchObject({ name: 'steady.bin', size: bytes.length, sha256: sha256(bytes) });
    const content = await http(t.url, `/api/files/${file.id}/content`);
    expect(content.status).toBe(200);
    expect(sha256(content.body)).toBe(sha256(bytes));
  });
});

describe('a throttled but steady 1 GiB upload', () => {
  it('1 GiB in 1 MiB writes, pausing 200 ms (under the 300 ms idle timeout) every 32 MiB: stored whole', async () => {
    const big = await startTestApp({
      app: { server: { bodyIdleTimeoutMs: IDLE_MS } },
      storage: { max_file_size_mb: 2048 },
      servers: {},
    });
    try {
      const GIB = 1024 ** 3;
      const block = randomBytes(1024 * 1024);
      const hash = createHash('sha256');
      const started = performance.now();
      const answer = await new Promise<{ status: number; json: { files: FileJson[] } }>((resolve, reject) => {
        const request = httpRequest(
          new URL('/api/files?name=throttled-1gib.bin', big.url),
          { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': GIB } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                json: JSON.parse(Buffer.concat(chunks).toString()),
              }),
            );
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        void (async () => {
          for (let i = 0; i < 1024; i++) {
            // Each MiB differs (its index in the first bytes), so the hash covers the order too.
            const chunk = Buffer.from(block);
            chunk.writeUInt32BE(i, 0);
            hash.update(chunk);
            if (!request.write(chunk)) await new Promise((drained) => request.once('drain', drained));
            if (i % 32 === 31) await delay(200);
          }
          request.end();
        })().catch(reject);
      });
      // 32 pauses alone take 6.4 s: far longer than the idle timeout, never idle that long.
      expect(performance.now() - started).toBeGreaterThan(6000);
      expect(answer.status).toBe(201);
      expect(answer.json.files[0]).toMatchObject({
        name: 'throttled-1gib.bin',
        size: GIB,
        sha256: hash.digest('hex'),
      });
    } finally {
      await big.close();
    }
  }, 180_000);
});

describe('Ferry being the slow side', () => {
  it('storage that takes nothing for a while is not the client being idle', async () => {
    // 16 MB sent at once: far more than the socket buffers hold, so the client is held back by
    // TCP, with bytes waiting unread in the request, while the store does not read.
    const files = t.storage.files;
    const put = files.put.bind(files);
    const spy = vi.spyOn(files, 'put').mockImplementation(async (...args) => {
      await delay(4 * IDLE_MS);
      return put(...args);
    });
    try {
      const bytes = randomBytes(16 * 1024 * 1024);
      const result = await throttledUpload('backpressure.bin', bytes, bytes.length, 0);
      expect(result.status).toBe(201);
      expect(result.json.files[0]).toMatchObject({ size: bytes.length, sha256: sha256(bytes) });
      expect(spy).toHaveBeenCalledOnce();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('responses the server sends', () => {
  it('an event stream stays open far longer than the idle timeout', async () => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      get(new URL('/api/events', t.url), resolve).on('error', reject);
    });
    expect(response.statusCode).toBe(200);
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    // Uploads are announced as `files_changed` with reason `uploaded`.
    const announced = new Promise<unknown>((resolve) => {
      void parseStream(response, (event) => {
        if (event.event === 'files_changed') resolve(JSON.parse(event.data));
      }).catch(() => undefined);
    });
    // The stream is idle (the server sends nothing) while this upload takes about 8 timeouts.
    const result = await throttledUpload('while-streaming.bin', randomBytes(48 * 1024), 1024, 50);
    expect(result.status).toBe(201);
    expect(await announced).toMatchObject({ type: 'files_changed', reason: 'uploaded' });
    expect(closed).toBe(false);
    response.destroy();
  });
});
