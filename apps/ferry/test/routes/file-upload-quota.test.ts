// The per-user quota over real HTTP: parallel uploads (raw body and multipart) must not store more
// than the quota together, and the refused ones leave no blob behind.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
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

/** Every blob on disk, partial uploads included. */
async function blobFiles(): Promise<number> {
  const root = join(t.dir, 'data', 'blobs');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}

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
  expect(await blobFiles()).toBe(stored.length);
});
