// Multipart file names that end in a separator (`report.csv/`, `dir\`): every file part goes
// through the same normalizer as any other name, and is either stored under the normalized name
// or refused with an error naming its form field. None is dropped without a word.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileJson, http, multipartBody, startTestApp, type TestApp } from '../support/start-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ servers: {} });
});
afterAll(async () => t?.close());

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

async function post(parts: Parameters<typeof multipartBody>[0]) {
  const { body, contentType } = multipartBody(parts);
  return http(t.url, '/api/files', { method: 'POST', headers: { 'content-type': contentType }, body });
}

async function storedNames(): Promise<string[]> {
  const listed = await http(t.url, '/api/files?allVersions=true&limit=1000');
  return listed.json<{ items: FileJson[] }>().items.map((f) => f.name);
}

// `x\\` is a quoted-string escape (RFC 9110 §5.6.4, what curl sends): the name is `x\`.
const TRAILING_SEPARATORS = [
  { field: 'csv', filename: 'a.csv/', content: 'k,v\n1,2\n', stored: 'a.csv' },
  { field: 'escaped', filename: 'x\\\\', content: 'backslash', stored: 'x' },
  { field: 'nested', filename: 'reports/q3/summary.txt/', content: 'summary', stored: 'summary.txt' },
  { field: 'windows', filename: 'C:\\\\Users\\\\me\\\\notes.md\\\\', content: '# notes', stored: 'notes.md' },
  // Unescaped, as a browser would send it: `dir\"` reads as an escaped quote, so the name is
  // `dir"` and the normalizer replaces the quote. Odd, but stored and answered, not dropped.
  { field: 'unescaped', filename: 'dir\\', content: 'dir', stored: 'dir_' },
];
const NORMAL = { field: 'plain', filename: 'normal.txt', content: 'plain text', stored: 'normal.txt' };

describe('multipart file names ending in a separator', () => {
  it('are stored under their normalized names, next to a normal file: every part in the answer', async () => {
    const parts = [...TRAILING_SEPARATORS, NORMAL];
    const result = await post(parts);
    expect(result.status).toBe(201);
    const files = result.json<{ files: FileJson[] }>().files;
    expect(files.map((f) => f.name)).toEqual(parts.map((p) => p.stored));
    for (const [i, file] of files.entries()) {
      const part = parts[i] as (typeof parts)[number];
      expect(file).toMatchObject({ size: Buffer.byteLength(part.content), sha256: sha256(part.content) });
      expect((await http(t.url, `/api/files/${file.id}/content`)).text).toBe(part.content);
    }
  });

  it('a name with nothing usable (`/`) fails the request with an error naming its field; nothing is kept', async () => {
    const before = await storedNames();
    const result = await post([
      ...TRAILING_SEPARATORS,
      { field: 'nothing', filename: '/', content: 'orphan' },
      NORMAL,
    ]);
    expect(result.status).toBe(400);
    const envelope = result.json<{ results: { error: string }; meta_data: Record<string, unknown> }>();
    expect(envelope.meta_data).toMatchObject({
      error_code: 'E_INVALID_INPUT',
      details: { field: 'nothing', filename: '/' },
    });
    expect(envelope.results.error).toContain('"nothing"');
    expect(envelope.results.error).toContain('"/"');
    expect(await storedNames()).toEqual(before);
  });

  it.each(['/', '\\\\', '//', './', '../'])(
    '%s alone is refused the same way, never a silent 201',
    async (filename) => {
      const result = await post([{ field: 'upload', filename, content: 'bytes' }]);
      expect(result.status).toBe(400);
      expect(result.json()).toMatchObject({
        meta_data: { error_code: 'E_INVALID_INPUT', details: { field: 'upload' } },
      });
    },
  );

  it('a part with bytes but an empty file name is refused, naming its field', async () => {
    const result = await post([NORMAL, { field: 'unnamed', filename: '', content: 'has bytes' }]);
    expect(result.status).toBe(400);
    expect(result.json()).toMatchObject({
      meta_data: { error_code: 'E_INVALID_INPUT', details: { field: 'unnamed' } },
    });
  });

  it("a form's empty file input (no name, no bytes) is still just nothing", async () => {
    const result = await post([{ field: 'empty', filename: '', content: '' }, NORMAL]);
    expect(result.status).toBe(201);
    expect(result.json<{ files: FileJson[] }>().files.map((f) => f.name)).toEqual(['normal.txt']);
  });
});
