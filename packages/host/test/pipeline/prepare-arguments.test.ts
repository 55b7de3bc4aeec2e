// Step 2 against a real FileStore (local blobs + SQLite) and real workspaces.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDataUri } from '@ferry/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FileMode,
  type PrepareArgumentsInput,
  prepareArguments,
} from '../../src/pipeline/prepare-arguments.js';
import { resolveConventions } from '../../src/pipeline/resolve-conventions.js';
import { PNG_1X1 } from './support/test-server.js';
import { openTestStorage, sha256, type TestStorage } from './support/test-storage.js';

const s = { type: 'string' };
const list = { type: 'array', items: s };
const fileInput = (descriptor: object, multiple = false) => {
  const item = { type: 'string', format: 'uri', 'x-mcp-file': descriptor };
  return multiple ? { type: 'array', items: item } : item;
};

let st: TestStorage;
let workspaceAsked: number;
beforeEach(async () => {
  st = await openTestStorage();
  workspaceAsked = 0;
});
afterEach(() => st.close());

function prepare(
  properties: Record<string, unknown>,
  args: Record<string, unknown>,
  extra: Partial<PrepareArgumentsInput> = {},
) {
  return prepareArguments({
    conventions: resolveConventions({ type: 'object', properties }),
    arguments: args,
    user: { owner: st.owner, username: st.username },
    fileMode: 'path' as FileMode,
    files: st.files,
    workspace: () => {
      workspaceAsked++;
      return st.workspaces.forUser(st.username);
    },
    downloadUrl: (id, token) =>
      `https://ferry.test/api/files/${id}/content?token=${encodeURIComponent(token)}`,
    base64LimitBytes: 1024,
    ...extra,
  });
}

async function ok(promise: ReturnType<typeof prepareArguments>) {
  const result = await promise;
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result;
}

describe('username and undeclared arguments', () => {
  it('overwrites a spoofed username only when the schema declares it', async () => {
    const r = await ok(prepare({ username: s, q: s }, { username: 'admin', q: 'x' }));
    expect(r.arguments).toEqual({ username: 'alice', q: 'x' });
    const injected = await ok(prepare({ username: s }, {}));
    expect(injected.arguments).toEqual({ username: 'alice' });
  });

  it('drops undeclared arguments, a username included, and records why', async () => {
    const r = await ok(prepare({ q: s }, { q: 'x', username: 'admin', extra: 1 }));
    expect(r.arguments).toEqual({ q: 'x' });
    expect(r.dropped).toEqual([
      { argument: 'username', reason: 'undeclared' },
      { argument: 'extra', reason: 'undeclared' },
    ]);
  });

  it('additionalProperties keeps undeclared arguments, but never a username the schema lacks', async () => {
    const r = await ok(
      prepareArguments({
        conventions: resolveConventions({ type: 'object', properties: { q: s }, additionalProperties: true }),
        arguments: { q: 'x', extra: 1, username: 'admin' },
        user: { owner: st.owner, username: 'alice' },
        fileMode: 'path',
        files: st.files,
        workspace: () => st.workspaces.forUser('alice'),
        downloadUrl: () => '',
        base64LimitBytes: 1024,
      }),
    );
    expect(r.arguments).toEqual({ q: 'x', extra: 1 });
  });
});

describe('filename / filenames / file_names', () => {
  it('path mode: a read-only copy under input_files, the transcript shows the name', async () => {
    const file = await st.put('sales.csv', 'region,total\nnorth,10\n');
    const r = await ok(prepare({ filename: s, username: s }, { filename: 'sales.csv', username: 'admin' }));
    const ws = await st.workspaces.forUser('alice');
    const toolPath = join(ws.toolDir, 'input_files', 'sales.csv');
    expect(r.arguments).toEqual({ filename: toolPath, username: 'alice' });
    expect(r.transcript).toEqual({ filename: 'sales.csv', username: 'alice' });
    expect(r.handedOver).toEqual([
      {
        argument: 'filename',
        fileId: file.id,
        name: 'sales.csv',
        mode: 'path',
        size: file.size,
        reference: toolPath,
      },
    ]);
    expect(sha256(await readFile(toolPath))).toBe(file.sha256);
    expect((await stat(toolPath)).mode & 0o777).toBe(0o444);
  });

  it('url mode: a signed URL the FileStore verifies for this user and file; other names pass through', async () => {
    const a = await st.put('a.txt', 'A');
    const modelArgs = { filename: 'a.txt', file_names: ['nope.txt', 'a.txt'] };
    const r = await ok(prepare({ filename: s, file_names: list }, modelArgs, { fileMode: 'url' }));
    const url = new URL(String(r.arguments.filename));
    expect(url.pathname).toBe(`/api/files/${a.id}/content`);
    const token = url.searchParams.get('token');
    expect(st.files.verifyDownload(token, { owner: st.owner, fileId: a.id })).toMatchObject({ ok: true });
    expect(st.files.verifyDownload(token, { owner: st.owner, fileId: 'other' })).toMatchObject({ ok: false });
    expect(r.arguments.file_names).toEqual(['nope.txt', r.arguments.filename]);
    expect(r.transcript).toEqual({ filename: 'a.txt', file_names: ['nope.txt', 'a.txt'] });
    // The caller's arguments are not rewritten in place.
    expect(modelArgs).toEqual({ filename: 'a.txt', file_names: ['nope.txt', 'a.txt'] });
    expect(workspaceAsked).toBe(0);
  });

  it('data-uri mode: RFC 2397 with name=, decoding to the exact bytes', async () => {
    await st.put('notes one.txt', 'hello, world');
    const r = await ok(
      prepare({ filenames: list }, { filenames: ['notes one.txt'] }, { fileMode: 'data-uri' }),
    );
    const [uri] = r.arguments.filenames as string[];
    expect(uri?.startsWith('data:text/plain;')).toBe(true);
    expect(uri).toContain(';name=notes%20one.txt;base64,');
    const parsed = parseDataUri(uri);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(Buffer.from(parsed.value.data()).toString()).toBe('hello, world');
    expect(parsed.value.name).toBe('notes one.txt');
    expect(r.transcript).toEqual({ filenames: ['notes one.txt'] });
  });

  it('a name that is not a file of this user passes through unchanged', async () => {
    const r = await ok(prepare({ filename: s }, { filename: '/etc/passwd-like.csv' }));
    expect(r.arguments).toEqual({ filename: '/etc/passwd-like.csv' });
    expect(r.handedOver).toEqual([]);
    expect(workspaceAsked).toBe(0);
  });

  it('file_data_base64 beside filename: filled with the bytes, the model value dropped, filename stays the name', async () => {
    const doc = await st.put('doc.txt', 'document body');
    const r = await ok(
      prepare({ filename: s, file_data_base64: s }, { filename: 'doc.txt', file_data_base64: 'spoof' }),
    );
    expect(r.arguments).toEqual({
      filename: 'doc.txt',
      file_data_base64: Buffer.from('document body').toString('base64'),
    });
    expect(r.transcript).toEqual({ filename: 'doc.txt', file_data_base64: 'doc.txt' });
    expect(r.dropped).toEqual([{ argument: 'file_data_base64', reason: 'injected' }]);
    expect(r.handedOver).toEqual([
      { argument: 'file_data_base64', fileId: doc.id, name: 'doc.txt', mode: 'base64', size: 13 },
    ]);
    const unknown = await ok(
      prepare({ filename: s, file_data_base64: s }, { filename: 'x.txt', file_data_base64: 'spoof' }),
    );
    expect(unknown.arguments).toEqual({ filename: 'x.txt' });
  });

  it('anything handed over inline above base64_size_limit fails with E_FILE_TOO_LARGE before any work', async () => {
    await st.put('big.bin', Buffer.alloc(2000, 7));
    const inject = await prepare({ filename: s, file_data_base64: s }, { filename: 'big.bin' });
    expect(inject).toMatchObject({
      ok: false,
      error: {
        meta_data: {
          error_code: 'E_FILE_TOO_LARGE',
          details: { file_size_bytes: 2000, current_limit_bytes: 1024 },
        },
      },
    });
    const dataUri = await prepare(
      { filename: s, filenames: list },
      { filename: 'small', filenames: ['big.bin'] },
      { fileMode: 'data-uri' },
    );
    expect(dataUri.ok).toBe(false);
    // Path and URL modes have no inline limit.
    expect((await prepare({ filename: s }, { filename: 'big.bin' })).ok).toBe(true);
  });
});

describe('x-mcp-file', () => {
  it('fills the argument from the user pick only; the model value is dropped', async () => {
    const png = await st.put('dot.png', Buffer.from(PNG_1X1, 'base64'));
    const r = await ok(
      prepare(
        { image: fileInput({ accept: ['image/png'] }) },
        { image: 'data:image/png;base64,AAAA' },
        { fileInputs: { image: png.id } },
      ),
    );
    // SEP-2356 final: a plain RFC 2397 data URI, no `name=`.
    expect(r.arguments.image).toBe(`data:image/png;base64,${PNG_1X1}`);
    const parsed = parseDataUri(r.arguments.image);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.value.name).toBeUndefined();
    expect(r.transcript).toEqual({ image: 'dot.png' });
    expect(r.dropped).toEqual([{ argument: 'image', reason: 'file_input' }]);
    const none = await ok(prepare({ image: fileInput({}) }, { image: 'data:,x' }));
    expect(none.arguments).toEqual({});
  });

  it("xMcpFileNameParam: the earlier draft's `name=` before ;base64", async () => {
    const png = await st.put('my dot.png', Buffer.from(PNG_1X1, 'base64'));
    const r = await ok(
      prepare({ image: fileInput({}) }, {}, { fileInputs: { image: png.id }, xMcpFileNameParam: true }),
    );
    expect(r.arguments.image).toBe(`data:image/png;name=my%20dot.png;base64,${PNG_1X1}`);
  });

  it('fills the paired filename argument from the same pick, whatever the model wrote', async () => {
    const csv = await st.put('q3 sales.csv', 'a,b\n');
    const properties = { document: fileInput({}), document_name: s, note: s };
    const r = await ok(
      prepare(properties, { document_name: '/etc/passwd', note: 'hi' }, { fileInputs: { document: csv.id } }),
    );
    expect(r.arguments).toEqual({
      document: `data:text/csv;base64,${Buffer.from('a,b\n').toString('base64')}`,
      document_name: 'q3 sales.csv',
      note: 'hi',
    });
    expect(r.transcript).toEqual({ document: 'q3 sales.csv', document_name: 'q3 sales.csv', note: 'hi' });
    expect(r.dropped).toContainEqual({ argument: 'document_name', reason: 'injected' });
    // Nothing picked: the model's value is dropped all the same, the tool gets no name.
    const none = await ok(prepare(properties, { document_name: 'made-up.csv' }));
    expect(none.arguments).toEqual({});
  });

  it('a `filename` paired with the only x-mcp-file input is its name, not a My Files reference', async () => {
    const csv = await st.put('picked.csv', 'x\n');
    await st.put('other.csv', 'y\n');
    const r = await ok(
      prepare(
        { document: fileInput({}), filename: s },
        { filename: 'other.csv' },
        { fileInputs: { document: csv.id } },
      ),
    );
    expect(r.arguments.filename).toBe('picked.csv');
    expect(r.handedOver.map((h) => h.argument)).toEqual(['document']);
    expect(workspaceAsked).toBe(0);
  });

  it('multi-file inputs take several picks, in order', async () => {
    const a = await st.put('a.png', Buffer.from(PNG_1X1, 'base64'));
    const b = await st.put('b.png', Buffer.from(PNG_1X1, 'base64'));
    const r = await ok(
      prepare(
        { images: fileInput({ accept: ['image/*'] }, true) },
        {},
        { fileInputs: { images: [b.id, a.id] } },
      ),
    );
    expect(r.transcript).toEqual({ images: ['b.png', 'a.png'] });
    expect((r.arguments.images as string[]).map((u) => parseDataUri(u).ok)).toEqual([true, true]);
  });

  it('refuses a file outside accept, over maxSize or over the base64 limit, before the call', async () => {
    const text = await st.put('t.txt', 'not an image');
    const png = await st.put('p.png', Buffer.from(PNG_1X1, 'base64'));
    const accept = await prepare(
      { image: fileInput({ accept: ['image/png'] }) },
      {},
      { fileInputs: { image: text.id } },
    );
    expect(accept).toMatchObject({
      ok: false,
      error: {
        meta_data: {
          error_code: 'E_FILE_TYPE_REJECTED',
          details: { name: 't.txt', mime: 'text/plain', accept: ['image/png'] },
        },
      },
    });
    const max = await prepare({ image: fileInput({ maxSize: 10 }) }, {}, { fileInputs: { image: png.id } });
    expect(max).toMatchObject({
      ok: false,
      error: { meta_data: { error_code: 'E_FILE_TOO_LARGE', details: { current_limit_bytes: 10 } } },
    });
    const limit = await prepare(
      { image: fileInput({}) },
      {},
      { fileInputs: { image: png.id }, base64LimitBytes: 10 },
    );
    expect(limit).toMatchObject({ ok: false, error: { meta_data: { error_code: 'E_FILE_TOO_LARGE' } } });
  });

  it('refuses unknown ids, picks for arguments that are not file inputs, and two files for one', async () => {
    const png = await st.put('p.png', Buffer.from(PNG_1X1, 'base64'));
    const props = { image: fileInput({}) };
    expect(await prepare(props, {}, { fileInputs: { image: 'nope' } })).toMatchObject({
      ok: false,
      error: { meta_data: { error_code: 'E_FILE_NOT_FOUND' } },
    });
    expect(await prepare(props, {}, { fileInputs: { other: png.id } })).toMatchObject({
      ok: false,
      error: { meta_data: { error_code: 'E_INVALID_INPUT' } },
    });
    expect(await prepare(props, {}, { fileInputs: { image: [png.id, png.id] } })).toMatchObject({
      ok: false,
      error: { meta_data: { error_code: 'E_INVALID_INPUT' } },
    });
  });
});
