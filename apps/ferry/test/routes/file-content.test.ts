// Downloads over real HTTP: Range, safe headers (inline only for safe types, HTML never inline,
// RFC 6266 names without header injection, nosniff), signed tokens (tamper, expiry, other file,
// other user) and how a missing user or token is answered, in proxy mode with two users.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  type FileJson,
  http,
  PROXY_AUTH,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';

// The smallest valid PNG: signature + IHDR (1x1) + IDAT + IEND.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

let t: TestApp;
let text: FileJson;
let bobFile: FileJson;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await startTestApp({ app: { auth: PROXY_AUTH }, servers: {} });
  text = await uploadOk(t.url, 'digits.txt', '0123456789', { ...ALICE, 'content-type': 'text/plain' });
  bobFile = await uploadOk(t.url, 'bob.txt', 'bob secret', BOB);
  alice = await t.storage.files.ensureUser('alice');
  bob = await t.storage.files.ensureUser('bob');
});
afterAll(async () => t?.close());

const content = (id: string, headers: Record<string, string> = ALICE, query = '') =>
  http(t.url, `/api/files/${id}/content${query}`, { headers });

describe('Range', () => {
  it.each([
    ['bytes=0-4', 206, '01234', 'bytes 0-4/10'],
    ['bytes=5-', 206, '56789', 'bytes 5-9/10'],
    ['bytes=-3', 206, '789', 'bytes 7-9/10'],
    ['bytes=8-100', 206, '89', 'bytes 8-9/10'],
    ['bytes=0-0', 206, '0', 'bytes 0-0/10'],
  ])('%s → %i', async (range, status, body, contentRange) => {
    const result = await http(t.url, `/api/files/${text.id}/content`, { headers: { ...ALICE, range } });
    expect(result.status).toBe(status);
    expect(result.text).toBe(body);
    expect(result.headers['content-range']).toBe(contentRange);
    expect(result.headers['content-length']).toBe(String(body.length));
  });

  it.each(['bytes=10-', 'bytes=10-20', 'bytes=-0'])('%s → 416 with the size', async (range) => {
    const result = await http(t.url, `/api/files/${text.id}/content`, { headers: { ...ALICE, range } });
    expect(result.status).toBe(416);
    expect(result.headers['content-range']).toBe('bytes */10');
    expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_RANGE_NOT_SATISFIABLE' } });
  });

  it.each(['bytes=0-1,4-5', 'bytes=x-y', 'items=0-1', 'bytes=5-2'])(
    '%s is ignored: the whole file',
    async (range) => {
      const result = await http(t.url, `/api/files/${text.id}/content`, { headers: { ...ALICE, range } });
      expect(result.status).toBe(200);
      expect(result.text).toBe('0123456789');
    },
  );

  it('any range of an empty file is unsatisfiable; the whole of it is fine', async () => {
    const empty = await uploadOk(t.url, 'empty.bin', '', ALICE);
    expect(
      (await http(t.url, `/api/files/${empty.id}/content`, { headers: { ...ALICE, range: 'bytes=0-' } }))
        .status,
    ).toBe(416);
    const whole = await content(empty.id);
    expect([whole.status, whole.body.length]).toEqual([200, 0]);
  });

  it('ETag: If-None-Match → 304; a stale If-Range → the whole file', async () => {
    const first = await content(text.id);
    const etag = first.headers.etag as string;
    expect(etag).toBe(`"${text.sha256}"`);
    expect(
      (await http(t.url, `/api/files/${text.id}/content`, { headers: { ...ALICE, 'if-none-match': etag } }))
        .status,
    ).toBe(304);
    const stale = await http(t.url, `/api/files/${text.id}/content`, {
      headers: { ...ALICE, range: 'bytes=0-1', 'if-range': '"other"' },
    });
    expect([stale.status, stale.text]).toEqual([200, '0123456789']);
  });
});

describe('safe headers', () => {
  it.each([
    ['pixel.png', 'inline', PNG, 'image/png'],
    ['notes.txt', 'inline', Buffer.from('plain text'), 'text/plain'],
    [
      'page.html',
      'attachment',
      Buffer.from('<!doctype html><html><script>alert(1)</script></html>'),
      'text/html',
    ],
    [
      'logo.svg',
      'attachment',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    ],
    ['data.bin', 'attachment', Buffer.from([0, 1, 2, 3]), 'application/octet-stream'],
  ])('%s is served %s', async (name, disposition, bytes, type) => {
    const file = await uploadOk(t.url, name, bytes, { ...ALICE, 'content-type': type });
    const result = await content(file.id);
    expect(result.status).toBe(200);
    expect(result.headers['content-disposition']?.split(';')[0]).toBe(disposition);
    expect(result.headers['x-content-type-options']).toBe('nosniff');
    if (type !== 'application/pdf') expect(result.headers['content-security-policy']).toContain('sandbox');
    expect(Buffer.compare(result.body, bytes)).toBe(0);
  });

  it('?download=true makes even an image an attachment', async () => {
    const file = await uploadOk(t.url, 'pic.png', PNG, ALICE);
    const result = await content(file.id, ALICE, '?download=true');
    expect(result.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('a name built for header injection comes back as one harmless header', async () => {
    const evil = 'evil\r\nSet-Cookie: session=stolen\r\n\r\n<script>.txt';
    const file = await uploadOk(t.url, evil, 'x', ALICE);
    expect(file.name).not.toMatch(/[\r\n]/);
    const result = await content(file.id);
    expect(result.headers['set-cookie']).toBeUndefined();
    const disposition = result.headers['content-disposition'] as string;
    expect(disposition).not.toMatch(/[\r\n]/);
    expect(disposition).toMatch(/^inline; filename="[^"]*"; filename\*=UTF-8''/);
  });

  it('non-ASCII names: an ASCII fallback and the exact name in filename*', async () => {
    const file = await uploadOk(t.url, 'résumé "final".pdf', '%PDF-1.4\n%%EOF\n', ALICE);
    const result = await content(file.id);
    const disposition = result.headers['content-disposition'] as string;
    const fallback = /filename="([^"]*)"/.exec(disposition)?.[1] ?? '';
    expect(fallback).toMatch(/^[\x20-\x7e]+$/);
    const exact = decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)?.[1] ?? '');
    expect(exact).toBe(file.name);
  });
});

describe('download tokens', () => {
  it('a valid token downloads without any user (as a tool does)', async () => {
    const token = t.storage.files.signDownload(alice, text.id);
    const result = await http(t.url, `/api/files/${text.id}/content?token=${encodeURIComponent(token)}`);
    expect([result.status, result.text]).toEqual([200, '0123456789']);
    expect(result.headers['cache-control']).toContain('no-store');
  });

  it('no user and no token: 401', async () => {
    const result = await http(t.url, `/api/files/${text.id}/content`);
    expect(result.status).toBe(401);
    expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_UNAUTHORIZED' } });
  });

  it('a tampered token: 403', async () => {
    const token = t.storage.files.signDownload(alice, text.id);
    const [payload, mac] = token.split('.') as [string, string];
    const flipped = `${payload}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    // The payload re-pointed at bob's file, keeping alice's signature.
    const forged = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace(`${alice}\n${text.id}`, `${bob}\n${bobFile.id}`),
    ).toString('base64url');
    expect(forged).not.toBe(payload);
    const cases: [string, string][] = [
      [text.id, flipped],
      [bobFile.id, `${forged}.${mac}`],
      [text.id, `${token}x`],
      [text.id, 'garbage'],
      [text.id, ''],
    ];
    for (const [id, bad] of cases) {
      const result = await http(t.url, `/api/files/${id}/content?token=${encodeURIComponent(bad)}`);
      expect(result.status, bad).toBe(403);
      expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_FORBIDDEN' } });
    }
  });

  it('an expired token: 403 (expired)', async () => {
    const token = t.storage.files.signDownload(alice, text.id, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const result = await http(t.url, `/api/files/${text.id}/content?token=${encodeURIComponent(token)}`);
    expect(result.status).toBe(403);
    expect(result.json()).toMatchObject({ meta_data: { details: { reason: 'expired' } } });
  });

  it("a token for another file (alice's token on bob's file): 403", async () => {
    const token = t.storage.files.signDownload(alice, text.id);
    const result = await http(t.url, `/api/files/${bobFile.id}/content?token=${encodeURIComponent(token)}`);
    expect(result.status).toBe(403);
    expect(result.json()).toMatchObject({ meta_data: { details: { reason: 'wrong_file' } } });
  });

  it("another user's token, used by a signed-in user: 403", async () => {
    const token = t.storage.files.signDownload(bob, bobFile.id);
    const result = await http(t.url, `/api/files/${bobFile.id}/content?token=${encodeURIComponent(token)}`, {
      headers: ALICE,
    });
    expect(result.status).toBe(403);
    expect(result.json()).toMatchObject({ meta_data: { details: { reason: 'wrong_owner' } } });
  });
});

describe('two users', () => {
  it("never see, fetch, rename or delete each other's files", async () => {
    const aliceList = (await http(t.url, '/api/files', { headers: ALICE })).json<{ items: FileJson[] }>();
    const bobList = (await http(t.url, '/api/files', { headers: BOB })).json<{ items: FileJson[] }>();
    expect(aliceList.items.some((f) => f.id === bobFile.id)).toBe(false);
    expect(bobList.items.map((f) => f.id)).toEqual([bobFile.id]);
    for (const [method, path, body] of [
      ['GET', `/api/files/${bobFile.id}`, undefined],
      ['GET', `/api/files/${bobFile.id}/content`, undefined],
      ['GET', `/api/files/${bobFile.id}/versions`, undefined],
      ['PATCH', `/api/files/${bobFile.id}`, JSON.stringify({ name: 'mine.txt' })],
      ['DELETE', `/api/files/${bobFile.id}`, undefined],
    ] as const) {
      const result = await http(t.url, path, {
        method,
        headers: { ...ALICE, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
    }
    const still = await content(bobFile.id, BOB);
    expect(still.text).toBe('bob secret');
  });
});

describe('HEAD', () => {
  it('answers with the headers of a download and no body', async () => {
    const result = await http(t.url, `/api/files/${text.id}/content`, { method: 'HEAD', headers: ALICE });
    expect(result.status).toBe(200);
    expect(result.headers['content-length']).toBe('10');
    expect(result.headers['accept-ranges']).toBe('bytes');
    expect(result.body.length).toBe(0);
    // The connection still works for the next request.
    expect((await content(text.id)).text).toBe('0123456789');
  });
});
