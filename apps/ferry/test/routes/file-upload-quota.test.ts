import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  blobFileCount,
  type FileJson,
  type HttpResult,
  http,
  multipartBody,
  startTestApp,
  type TestApp,
  upload,
} from '../support/start-app.js';

const MIB = 1024 * 1024;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ storage: { max_file_size_mb: 8, user_quota_mb: 20 }, servers: {} });
});
afterAll(async () => t?.close());

it('20 parallel 4 MiB uploads (raw and multipart) under a 20 MiB quota store at most 20 MiB', async () => {
  const sends: Promise<HttpResult>[] = Array.from({ length: 20 }, (_, i) => {
    const content = Buffer.alloc(4 * MIB, i + 1);
    if (i % 2 === 0) return upload(t.url, `raw-${i}.bin`, content);
    const { body, contentType } = multipartBody([{ filename: `multi-${i}.bin`, content }], `b-${i}`);
    return http(t.url, '/api/files', { method: 'POST', headers: { 'content-type': contentType }, body });
  });
  const results = await Promise.all(sends);

  const stored = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status !== 201);
  expect(stored.length).toBeLessThanOrEqual(5);
  for (const result of refused) {
    expect(result.status, result.text).toBe(507);
    expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_QUOTA_EXCEEDED', is_error: true } });
  }

  const me = (await http(t.url, '/api/me')).json<{
    usage: { bytes: number; count: number; quotaBytes: number };
  }>();
  expect(me.usage).toEqual({ bytes: stored.length * 4 * MIB, count: stored.length, quotaBytes: 20 * MIB });
  const listed = (await http(t.url, '/api/files?allVersions=true&limit=1000')).json<{ items: FileJson[] }>()
    .items;
  expect(listed.reduce((sum, f) => sum + f.size, 0)).toBe(me.usage.bytes);
  expect(await blobFileCount(t)).toBe(stored.length);
});
