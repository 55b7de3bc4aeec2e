// One normalizer for every way a name enters My Files: a raw upload (?name= or X-File-Name), a
// multipart part, a rename and the CLI's `files put` all store seed 000 §5.2's
// `..\..\..\windows\system32\file` and `a/file` as `file`. A name with nothing usable in it is a
// 400 naming the field it came in, and nothing is stored.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { ferry } from '../cli/run-ferry.js';
import {
  type FileJson,
  http,
  multipartBody,
  startTestApp,
  type TestApp,
  upload,
} from '../support/start-app.js';

const SEED_EXAMPLE = '..\\..\\..\\windows\\system32\\file';

interface Envelope {
  results: { error: string };
  meta_data: { error_code: string; details: Record<string, unknown> };
}

let t: TestApp;
let work: string;
beforeAll(async () => {
  t = await startTestApp({ servers: {} });
  work = await mkdtemp(join(tmpdir(), 'ferry-names-'));
});
afterAll(async () => {
  await t?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function stored(): Promise<[string, number, string][]> {
  const listed = await http(t.url, '/api/files?allVersions=true&limit=1000');
  const items = listed.json<{ items: FileJson[] }>().items;
  const contents: [string, number, string][] = [];
  for (const file of items) {
    contents.push([file.name, file.version, (await http(t.url, `/api/files/${file.id}/content`)).text]);
  }
  return contents;
}

beforeEach(async () => {
  const listed = await http(t.url, '/api/files?allVersions=true&limit=1000');
  for (const file of listed.json<{ items: FileJson[] }>().items) {
    await http(t.url, `/api/files/${file.id}`, { method: 'DELETE' });
  }
});

function rawWithHeader(name: string, body: string) {
  return http(t.url, '/api/files', {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'x-file-name': encodeURIComponent(name) },
    body,
  });
}

function multipart(filename: string, body: string) {
  // A quoted-string escapes `\` as `\\` (RFC 9110 §5.6.4), as curl sends it.
  const { body: payload, contentType } = multipartBody([
    { field: 'upload', filename: filename.replaceAll('\\', '\\\\'), content: body },
  ]);
  return http(t.url, '/api/files', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: payload,
  });
}

const only = (result: Awaited<ReturnType<typeof http>>) => {
  expect(result.status, result.text).toBe(201);
  const files = result.json<{ files: FileJson[] }>().files;
  expect(files).toHaveLength(1);
  return files[0] as FileJson;
};

describe('a path-like name is stored under its last segment, whichever way it enters', () => {
  it('raw upload, name in ?name=', async () => {
    expect(only(await upload(t.url, SEED_EXAMPLE, 'raw query'))).toMatchObject({ name: 'file', version: 1 });
    expect(only(await upload(t.url, 'a/file', 'raw query 2'))).toMatchObject({ name: 'file', version: 2 });
    expect(await stored()).toEqual([
      ['file', 2, 'raw query 2'],
      ['file', 1, 'raw query'],
    ]);
  });

  it('raw upload, name in X-File-Name', async () => {
    expect(only(await rawWithHeader(SEED_EXAMPLE, 'header'))).toMatchObject({ name: 'file', version: 1 });
    expect(only(await rawWithHeader('a/file', 'header 2'))).toMatchObject({ name: 'file', version: 2 });
    expect(await stored()).toEqual([
      ['file', 2, 'header 2'],
      ['file', 1, 'header'],
    ]);
  });

  it('multipart part', async () => {
    expect(only(await multipart(SEED_EXAMPLE, 'part'))).toMatchObject({ name: 'file', version: 1 });
    expect(only(await multipart('a/file', 'part 2'))).toMatchObject({ name: 'file', version: 2 });
    expect(await stored()).toEqual([
      ['file', 2, 'part 2'],
      ['file', 1, 'part'],
    ]);
  });

  it('rename', async () => {
    const first = only(await upload(t.url, 'one.txt', 'one'));
    const renamed = await http(t.url, `/api/files/${first.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: SEED_EXAMPLE }),
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json()).toMatchObject({ id: first.id, name: 'file' });
    const second = only(await upload(t.url, 'two.txt', 'two'));
    const again = await http(t.url, `/api/files/${second.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'b/two/file.txt' }),
    });
    expect(again.json()).toMatchObject({ id: second.id, name: 'file.txt' });
    expect(await stored()).toEqual([
      ['file', 1, 'one'],
      ['file.txt', 1, 'two'],
    ]);
  });

  it('ferry files put: a local file so named, and --name a/file', async () => {
    // On Linux the backslashes are part of one file name; the CLI sends it as the name.
    await writeFile(join(work, SEED_EXAMPLE), 'from the cli');
    await writeFile(join(work, 'plain.txt'), 'renamed by --name');
    const put = await ferry(t.url, ['--json', 'files', 'put', SEED_EXAMPLE], { cwd: work });
    expect(put.code, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ files: [{ name: 'file', version: 1 }], failed: [] });
    const named = await ferry(t.url, ['--json', 'files', 'put', 'plain.txt', '--name', 'a/file'], {
      cwd: work,
    });
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ files: [{ name: 'file', version: 2 }], failed: [] });
    expect(await stored()).toEqual([
      ['file', 2, 'renamed by --name'],
      ['file', 1, 'from the cli'],
    ]);
  }, 60_000);
});

describe('a name with nothing usable is a 400 naming its field; nothing is stored', () => {
  const refused = (result: Awaited<ReturnType<typeof http>>, field: string) => {
    expect(result.status, result.text).toBe(400);
    const envelope = result.json<Envelope>();
    expect(envelope.meta_data.error_code).toBe('E_INVALID_INPUT');
    expect(envelope.meta_data.details.field).toBe(field);
    expect(envelope.results.error).toMatch(/has no usable characters/);
    return envelope;
  };

  it.each(['../..', '///', '...'])('%s as ?name=, X-File-Name, multipart part and rename', async (name) => {
    refused(await upload(t.url, name, 'x'), 'name');
    const header = refused(await rawWithHeader(name, 'x'), 'x-file-name');
    expect(header.results.error).toContain('x-file-name');
    refused(await multipart(name, 'x'), 'upload');
    const file = only(await upload(t.url, 'keep.txt', 'kept'));
    const rename = await http(t.url, `/api/files/${file.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    refused(rename, 'name');
    expect(await stored()).toEqual([['keep.txt', 1, 'kept']]);
  });

  it('an empty name is refused as missing', async () => {
    const empty = await rawWithHeader('', 'x');
    expect(empty.status).toBe(400);
    expect(empty.json<Envelope>().meta_data).toMatchObject({
      error_code: 'E_INVALID_INPUT',
      details: { field: 'name' },
    });
    expect(await stored()).toEqual([]);
  });

  it('ferry files put --name ../.. fails with E_INVALID_INPUT and stores nothing', async () => {
    await writeFile(join(work, 'bytes.bin'), 'bytes');
    const put = await ferry(t.url, ['--json', 'files', 'put', 'bytes.bin', '--name', '../..'], { cwd: work });
    expect(put.code).toBe(EXIT.refused);
    const body = JSON.parse(put.stdout) as { files: unknown[]; failed: { code?: string; error: string }[] };
    expect(body.files).toEqual([]);
    expect(body.failed).toEqual([
      expect.objectContaining({
        code: 'E_INVALID_INPUT',
        error: expect.stringMatching(/no usable characters/),
      }),
    ]);
    expect(await stored()).toEqual([]);
  }, 60_000);
});
