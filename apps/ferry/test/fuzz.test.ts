// A bounded fuzz: 2,000 random bad requests (seeded, so a failure replays) over real HTTP, plus a
// few hand-broken ones over a raw socket. None may answer 5xx, every API error must be an
// envelope, and afterwards My Files and the call list are exactly as before.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type FileJson,
  http,
  rawRequest,
  startTestApp,
  statusOf,
  type TestApp,
  uploadOk,
} from './support/start-app.js';

const REQUESTS = 2000;
const SEED = 0x5eed_f3a7;

let t: TestApp;
let existing: FileJson;

beforeAll(async () => {
  t = await startTestApp({ storage: { max_file_size_mb: 1 } });
  existing = await uploadOk(t.url, 'keep.txt', 'keep me');
}, 60_000);
afterAll(async () => t?.close());

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function snapshot() {
  const files = (await http(t.url, '/api/files?allVersions=true&limit=1000')).json<{ items: FileJson[] }>();
  const calls = (await http(t.url, '/api/calls')).json<{ items: unknown[] }>();
  const blobs = (
    await readdir(join(t.dir, 'data', 'blobs'), { recursive: true, withFileTypes: true })
  ).filter((e) => e.isFile()).length;
  return {
    files: files.items.map((f) => `${f.id}:${f.name}:${f.version}:${f.sha256}`).sort(),
    calls: calls.items,
    blobs,
  };
}

it(`${REQUESTS} random bad requests: no 5xx, envelopes only, no state change`, async () => {
  const random = mulberry32(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const junk = () =>
    encodeURIComponent(
      Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
        String.fromCharCode(32 + Math.floor(random() * 95)),
      ).join(''),
    );
  const badIds = [
    '',
    'x',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '%00',
    '%ff%fe',
    'a'.repeat(250),
    '00000000-0000-0000-0000-00000000000g',
    '7b0f2c4e-8a1d-4c3e-9f5a-1b2c3d4e5f60',
    crypto.randomUUID(),
    '-1',
    'null',
    'undefined',
    '%20',
  ];
  const ids = () => (random() < 0.15 ? existing.id : pick(badIds) || junk());
  const paths = [
    () => `/api/files/${ids()}`,
    () => `/api/files/${ids()}/content`,
    () => `/api/files/${ids()}/versions`,
    () => `/api/calls/${pick(badIds) || junk()}`,
    () => `/api/calls/${pick(badIds) || junk()}/events`,
    () => `/api/servers/${pick(['..', 'nope', junk(), 'report-http', '%00', 'a'.repeat(80)])}/tools`,
    () => `/api/sessions/${pick(['x', '..%2F', 'a b', junk(), '%00'])}`,
    // Another user (403 for a non-admin), bad names; never the test's own user.
    () => `/api/users/${pick(['someone-else', '..', '..%2Fdev', '%00', '.dev', junk(), 'a'.repeat(200)])}`,
    () => '/api/files',
    () => '/api/calls',
    () => '/api/me',
    () => `/api/${junk()}`,
    () => `/${junk()}`,
  ];
  const queries = [
    '',
    '?limit=-1',
    '?limit=abc',
    '?limit=100000',
    '?offset=1e99',
    '?sort=evil',
    '?order=sideways',
    '?source=stolen',
    '?allVersions=maybe',
    '?token=garbage',
    '?token=',
    `?token=${'A'.repeat(5000)}`,
    `?q=${'x'.repeat(300)}`,
    '?download=yes',
    '?lastEventId=-1',
    '?lastEventId=abc',
    '?name=',
    '?session=all',
    '?temporary=perhaps',
    `?${junk()}=${junk()}`,
  ];
  const contentTypes = [
    'application/json',
    'text/plain',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=zz',
    'garbage',
    'application/x-www-form-urlencoded',
    'application/octet-stream',
  ];
  const bodies = [
    '',
    '{',
    '{}',
    '[]',
    'null',
    '"text"',
    '{"server":123}',
    '{"server":"report","tool":42}',
    '{"server":"nope","tool":"x"}',
    '{"server":"report","tool":"csv_report","arguments":"not-an-object"}',
    '{"server":"report","tool":"csv_report","fileInputs":{"f":"not-a-uuid"}}',
    '{"name":""}',
    '{"name":123}',
    '--zz\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nunterminated',
    '\u0000\u0001\u0002',
  ];
  const methods = ['GET', 'GET', 'POST', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'];

  const before = await snapshot();
  const failures: string[] = [];
  const seen = new Map<number, number>();
  const one = async (index: number) => {
    const method = pick(methods);
    let path = pick(paths)() + pick(queries);
    const headers: Record<string, string> = {};
    if (random() < 0.6) headers['content-type'] = pick(contentTypes);
    if (random() < 0.3)
      headers.range = pick(['bytes=abc', 'bytes=99999999999999999-', 'bytes=-', 'bytes=0-1,2-3', junk()]);
    if (random() < 0.2) headers['x-ferry-session'] = pick(['bad id!', 'short', junk(), 'a'.repeat(200)]);
    if (random() < 0.2) headers['last-event-id'] = pick(['abc', '-5', '1'.repeat(40)]);
    if (random() < 0.1) headers['if-range'] = junk();
    let body = method === 'GET' || method === 'HEAD' ? undefined : pick(bodies);
    // Nothing below may succeed at changing state: refuse to send a request that could.
    if (method === 'DELETE' && path.includes(existing.id)) path = path.replace(existing.id, 'x');
    if (method === 'POST' && path.startsWith('/api/files') && /[?&]name=[^&]/.test(path)) path = '/api/files';
    if (method === 'POST' && path.startsWith('/api/sessions')) path = `/api/sessions/x${index}`;
    if (method === 'PATCH' && body === '{"name":"x"}') body = '{}';
    let result: Awaited<ReturnType<typeof http>>;
    try {
      result = await http(t.url, path, { method, headers, ...(body === undefined ? {} : { body }) });
    } catch (error) {
      failures.push(
        `${method} ${path} ${JSON.stringify(headers)} ${JSON.stringify(body)} → ${(error as Error).message}`,
      );
      return;
    }
    seen.set(result.status, (seen.get(result.status) ?? 0) + 1);
    if (result.status >= 500)
      failures.push(
        `${method} ${path} ${JSON.stringify(headers)} → ${result.status} ${result.text.slice(0, 200)}`,
      );
    if (result.status >= 400 && method !== 'HEAD') {
      const envelope = (() => {
        try {
          return result.json<{ meta_data?: { is_error?: boolean } }>();
        } catch {
          return undefined;
        }
      })();
      if (envelope?.meta_data?.is_error !== true)
        failures.push(`${method} ${path} → ${result.status} not an envelope: ${result.text.slice(0, 100)}`);
    }
  };
  const workers = 8;
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < REQUESTS) await one(next++);
    }),
  );

  // Requests Node's own parser rejects, and bodies that lie about their length.
  const raw = [
    'GARBAGE\r\n\r\n',
    'GET /api/files HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n',
    'GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n',
    'POST /api/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":',
    'POST /api/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n',
    'POST /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
  ];
  for (const request of raw) {
    const answer = await rawRequest(t.url, (socket) => socket.end(request), { timeoutMs: 3000 });
    const status = statusOf(answer);
    if (status >= 500) failures.push(`raw ${JSON.stringify(request.slice(0, 60))} → ${status}`);
  }

  expect(failures).toEqual([]);
  expect(await snapshot()).toEqual(before);
  expect((await http(t.url, `/api/files/${existing.id}/content`)).text).toBe('keep me');
  // Most answers are 4xx; the spread shows the fuzz reached past routing.
  expect([...seen.keys()].filter((status) => status >= 400).length).toBeGreaterThan(4);
}, 120_000);
