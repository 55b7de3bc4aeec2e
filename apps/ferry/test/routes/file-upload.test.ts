// Uploads over real HTTP: the size limit at exactly the limit and one byte past it (raw and
// multipart), nothing left behind by a refused or broken upload, malformed multipart, a body that
// disagrees with its Content-Length, empty files, many files in one request.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobFileCount,
  type FileJson,
  http,
  multipartBody,
  rawRequest,
  startTestApp,
  statusOf,
  storedVersions,
  type TestApp,
  upload,
} from '../support/start-app.js';

const LIMIT = 1024 * 1024; // max_file_size_mb: 1
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ storage: { max_file_size_mb: 1 }, servers: {} });
});
afterAll(async () => t?.close());

const listNames = () => storedVersions(t.url);
const blobCount = () => blobFileCount(t);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('raw-body upload', () => {
  it('stores a file of exactly max_file_size_mb and refuses one byte more, leaving nothing behind', async () => {
    const exact = Buffer.alloc(LIMIT, 7);
    const ok = await upload(t.url, 'exact.bin', exact);
    expect(ok.status).toBe(201);
    const stored = ok.json<{ files: FileJson[] }>().files[0];
    expect(stored).toMatchObject({ name: 'exact.bin', size: LIMIT, sha256: sha256(exact) });

    const blobsBefore = await blobCount();
    const namesBefore = await listNames();
    const tooBig = await upload(t.url, 'toobig.bin', Buffer.alloc(LIMIT + 1, 7));
    expect(tooBig.status).toBe(413);
    expect(tooBig.json()).toMatchObject({ meta_data: { error_code: 'E_FILE_TOO_LARGE', is_error: true } });
    expect(await listNames()).toEqual(namesBefore);
    expect(await blobCount()).toBe(blobsBefore);
  });

  it('refuses limit+1 bytes sent chunked (no Content-Length), removing the partial bytes', async () => {
    const blobsBefore = await blobCount();
    const namesBefore = await listNames();
    const raw = await rawRequest(t.url, (socket) => {
      socket.write(
        'POST /api/files?name=chunked.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = (): void => {
        while (sent <= LIMIT) {
          const size = Math.min(chunk.length, LIMIT + 1 - sent);
          const frame = Buffer.concat([
            Buffer.from(`${size.toString(16)}\r\n`),
            chunk.subarray(0, size),
            Buffer.from('\r\n'),
          ]);
          sent += size;
          if (!socket.write(frame)) {
            socket.once('drain', pump);
            return;
          }
        }
        socket.write('0\r\n\r\n');
      };
      pump();
    });
    const status = statusOf(raw);
    expect(status).toBe(413);
    expect(await listNames()).toEqual(namesBefore);
    expect(await blobCount()).toBe(blobsBefore);
  });

  it('stores a 0-byte file', async () => {
    const result = await upload(t.url, 'empty.txt', Buffer.alloc(0));
    expect(result.status).toBe(201);
    const file = result.json<{ files: FileJson[] }>().files[0] as FileJson;
    expect(file.size).toBe(0);
    const content = await http(t.url, `/api/files/${file.id}/content`);
    expect(content.status).toBe(200);
    expect(content.body.length).toBe(0);
  });

  it('takes the name from X-File-Name (percent-encoded UTF-8) and keeps a JSON body as a file', async () => {
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-file-name': encodeURIComponent('données été.json') },
      body: '{"not":"parsed"}',
    });
    expect(result.status).toBe(201);
    const file = result.json<{ files: FileJson[] }>().files[0] as FileJson;
    expect(file.name).toBe('données été.json');
    const content = await http(t.url, `/api/files/${file.id}/content`);
    expect(content.text).toBe('{"not":"parsed"}');
  });

  it('requires a name', async () => {
    const result = await http(t.url, '/api/files', { method: 'POST', body: 'x' });
    expect(result.status).toBe(400);
    expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_INVALID_INPUT' } });
  });

  it('a body shorter than its Content-Length (client gone) stores nothing', async () => {
    const namesBefore = await listNames();
    const blobsBefore = await blobCount();
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => {
        socket.write(
          'POST /api/files?name=short.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n',
        );
        socket.write(Buffer.alloc(500, 1));
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    // Nothing may appear in the 300 ms after the abort (a window, not a wait for an event: the
    // assertion is that nothing happens); the temporary blob goes when the server notices, which a
    // busy machine may delay, so that part is polled with a time bound.
    await new Promise((r) => setTimeout(r, 300));
    await expect.poll(blobCount, { timeout: 10_000 }).toBe(blobsBefore);
    expect(await listNames()).toEqual(namesBefore);
    expect((await http(t.url, '/api/me')).status).toBe(200);
  });

  it.each([
    ['in the same packet', 0],
    ['after the answer', 300],
  ])(
    'a body longer than its Content-Length (%s): at most Content-Length bytes are stored, the rest is a bad request',
    async (_label, delay) => {
      const name = `long-${delay}.txt`;
      const raw = await new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => {
          const head = `POST /api/files?name=${name} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`;
          const excess = 'XXXXXXXXXXXXX\r\n\r\n';
          if (delay === 0) socket.write(head + excess);
          else {
            socket.write(head);
            setTimeout(() => socket.write(excess), delay);
          }
        });
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString();
        });
        socket.on('close', () => resolve(text));
        socket.on('error', () => resolve(text));
        setTimeout(() => socket.destroy(), 2000).unref();
      });
      // Node's parser reads the excess as a second request and answers it 400; when it comes in the
      // same packet, that answer may close the socket before the upload's own answer is written.
      expect(raw).toMatch(/HTTP\/1\.1 400/);
      expect(raw).not.toMatch(/HTTP\/1\.1 5\d\d/);
      if (delay > 0) expect(raw).toMatch(/^HTTP\/1\.1 201/);
      await new Promise((r) => setTimeout(r, 200));
      const files = (await http(t.url, `/api/files?q=${name}`)).json<{ items: FileJson[] }>().items;
      for (const file of files) expect(file.size).toBe(5);
      if (delay > 0) expect(files).toHaveLength(1);
    },
  );

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => {
        socket.write(
          `POST /api/files?name=huge.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${10 * LIMIT}\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 413/);
    expect(raw.toLowerCase()).toContain('connection: close');
  });
});

describe('multipart upload', () => {
  it('stores several files from one request', async () => {
    const { body, contentType } = multipartBody([
      { filename: 'a.csv', type: 'text/csv', content: 'k,v\n1,2\n' },
      { filename: 'b.txt', type: 'text/plain', content: 'hello' },
      { filename: 'c.bin', content: Buffer.alloc(LIMIT, 3) },
    ]);
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(result.status).toBe(201);
    const files = result.json<{ files: FileJson[] }>().files;
    expect(files.map((f) => [f.name, f.size])).toEqual([
      ['a.csv', 8],
      ['b.txt', 5],
      ['c.bin', LIMIT],
    ]);
  });

  it('limit+1 bytes in any part fails the whole request and keeps none of its files', async () => {
    const namesBefore = await listNames();
    const blobsBefore = await blobCount();
    const { body, contentType } = multipartBody([
      { filename: 'first.txt', content: 'ok' },
      { filename: 'big.bin', content: Buffer.alloc(LIMIT + 1, 4) },
    ]);
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(result.status).toBe(413);
    expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_FILE_TOO_LARGE' } });
    expect(await listNames()).toEqual(namesBefore);
    expect(await blobCount()).toBe(blobsBefore);
  });

  it.each([
    [
      'truncated body',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nabc',
    ],
    ['no boundary', 'multipart/form-data', '--x\r\n\r\n'],
    ['garbage', 'multipart/form-data; boundary=x', 'this is not multipart at all'],
    [
      'bad part header',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition\r\n\r\nabc\r\n--x--\r\n',
    ],
    [
      'no file part',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="f"\r\n\r\nabc\r\n--x--\r\n',
    ],
  ])('malformed multipart (%s) is a 400 that stores nothing', async (_label, contentType, body) => {
    const namesBefore = await listNames();
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(result.status).toBe(400);
    expect(result.json()).toMatchObject({ meta_data: { is_error: true } });
    expect(await listNames()).toEqual(namesBefore);
  });

  it('stores a 0-byte file part', async () => {
    const { body, contentType } = multipartBody([{ filename: 'zero.dat', content: '' }]);
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(result.status).toBe(201);
    expect(result.json<{ files: FileJson[] }>().files[0]).toMatchObject({ name: 'zero.dat', size: 0 });
  });

  it('normalizes a traversal filename into one safe name', async () => {
    const { body, contentType } = multipartBody([{ filename: '../../etc/passwd', content: 'x' }]);
    const result = await http(t.url, '/api/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    expect(result.status).toBe(201);
    expect(result.json<{ files: FileJson[] }>().files[0]?.name).toBe('passwd');
  });
});
