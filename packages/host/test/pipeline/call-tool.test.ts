// The whole pipeline: a real McpServer over InMemoryTransport, a real FileStore (local blobs +
// SQLite), real workspaces on disk, a manual clock for the watchdog.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CallEvent, parseDataUri, TIMEOUT_MESSAGE, TIMEOUT_NOTICES } from '@ferry/contract';
import type { StorageConfigInput } from '@ferry/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, type ToolCallDeps, type ToolCallRequest } from '../../src/pipeline/call-tool.js';
import { DEFAULT_TIMEOUTS } from '../../src/pipeline/call-with-watchdog.js';
import type { FileMode } from '../../src/pipeline/prepare-arguments.js';
import {
  connectInMemory,
  singleConnectionPool,
  type TestConnection,
} from './support/in-memory-connection.js';
import { ManualClock } from './support/manual-clock.js';
import { createTestServer, PNG_1X1, type TestServer } from './support/test-server.js';
import { openTestStorage, sha256, type TestStorage } from './support/test-storage.js';
import { waitFor } from './support/wait-for.js';

interface Harness {
  st: TestStorage;
  ts: TestServer;
  connection: TestConnection;
  events: CallEvent[];
  clock: ManualClock;
  deps: ToolCallDeps;
  call(
    tool: string,
    args?: Record<string, unknown>,
    extra?: Partial<ToolCallRequest>,
  ): ReturnType<typeof callTool>;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.connection.close();
  await h?.st.close();
  h = undefined;
});

async function setup(
  options: {
    fileMode?: FileMode;
    config?: StorageConfigInput;
    kind?: 'local' | 'remote';
    detect?: boolean;
  } = {},
) {
  const st = await openTestStorage(options.config);
  const ts = createTestServer(st.workspaceRoot);
  const connection = await connectInMemory(ts.server, { name: 'examples', kind: options.kind ?? 'local' });
  const events: CallEvent[] = [];
  const clock = new ManualClock();
  const deps: ToolCallDeps = {
    pool: singleConnectionPool(connection),
    files: st.files,
    workspaces: st.workspaces,
    serverSettings: () => ({
      fileMode: options.fileMode ?? 'path',
      timeouts: { ...DEFAULT_TIMEOUTS },
      ...(options.detect === undefined ? {} : { detectWorkspaceFiles: options.detect }),
    }),
    downloadUrl: (id, token) =>
      `https://ferry.test/api/files/${id}/content?token=${encodeURIComponent(token)}`,
    clock,
    emit: (event) => events.push(event),
  };
  h = {
    st,
    ts,
    connection,
    events,
    clock,
    deps,
    call: (tool, args = {}, extra = {}) =>
      callTool(
        {
          user: { owner: st.owner, username: st.username },
          server: 'examples',
          tool,
          arguments: args,
          ...extra,
        },
        deps,
      ),
  };
  return h;
}

const types = (events: CallEvent[]) => events.map((e) => e.type);

describe('arguments', () => {
  it('overwrites a spoofed username only when declared and drops undeclared arguments', async () => {
    const { call, ts, events, deps } = await setup();
    const who = await call('whoami', { username: 'admin', note: 'hi', extra: 1 });
    expect((deps.pool as ReturnType<typeof singleConnectionPool>).gets[0]).toEqual(['examples', 'alice']);
    expect(ts.lastArgs.whoami).toEqual({ username: 'alice', note: 'hi' });
    expect(who.forModel.results).toEqual({ username: 'alice', note: 'hi' });
    const echo = await call('echo', { text: 't', username: 'admin' });
    expect(ts.lastArgs.echo).toEqual({ text: 't' });
    expect(echo.status).toBe('finished');
    const prepared = events.filter((e) => e.type === 'arguments_prepared');
    expect(prepared.map((e) => e.type === 'arguments_prepared' && e.dropped)).toEqual([
      [{ argument: 'extra', reason: 'undeclared' }],
      [{ argument: 'username', reason: 'undeclared' }],
    ]);
  });

  it('filename → path: the tool reads the exact bytes from a read-only copy; the model sees only the name', async () => {
    const { call, st } = await setup();
    const file = await st.put('sales.csv', 'region,total\nnorth,10\n');
    const r = await call('read_input', { filename: 'sales.csv' });
    const toolPath = join(st.workspaceRoot, 'alice', 'input_files', 'sales.csv');
    expect(r.forModel.results).toEqual({
      path: 'sales.csv',
      sha256: file.sha256,
      size: file.size,
      mode: 0o444,
    });
    expect((await stat(toolPath)).mode & 0o777).toBe(0o444);
    expect(sha256(await readFile(toolPath))).toBe(file.sha256);
    expect(r.transcript).toEqual({ filename: 'sales.csv' });
    expect(JSON.stringify(r.forModel)).not.toContain(st.workspaceRoot);
  });

  it('url mode: a token the FileStore accepts; unknown names pass through; the model never sees the URL', async () => {
    const { call, st, ts } = await setup({ fileMode: 'url' });
    const file = await st.put('a.txt', 'A');
    const r = await call('fetch_urls', { filename: 'a.txt', file_names: ['a.txt', 'not-mine.csv'] });
    const received = ts.lastArgs.fetch_urls as { filename: string; file_names: string[] };
    const url = new URL(received.filename);
    expect(
      st.files.verifyDownload(url.searchParams.get('token'), { owner: st.owner, fileId: file.id }),
    ).toMatchObject({ ok: true });
    expect(received.file_names).toEqual([received.filename, 'not-mine.csv']);
    expect(r.forModel.results).toEqual({
      received: { filename: 'a.txt', file_names: ['a.txt', 'not-mine.csv'] },
    });
    expect(JSON.stringify(r.forModel)).not.toMatch(/https:|token/);
  });

  it('data-uri mode and file_data_base64 hand over the bytes; the transcript keeps names', async () => {
    const { call, st, ts } = await setup({ fileMode: 'data-uri' });
    const file = await st.put('doc.txt', 'document body');
    await call('fetch_urls', { filename: 'doc.txt' });
    const parsed = parseDataUri((ts.lastArgs.fetch_urls as { filename: string }).filename);
    expect(parsed.ok && Buffer.from(parsed.value.data()).toString()).toBe('document body');
    const r = await call('inject', { filename: 'doc.txt', file_data_base64: 'c3Bvb2Y=' });
    expect(r.forModel.results).toEqual({ filename: 'doc.txt', sha256: file.sha256 });
    expect(r.transcript).toEqual({ filename: 'doc.txt', file_data_base64: 'doc.txt' });
  });

  it('over base64_size_limit: E_FILE_TOO_LARGE before the call, the tool never runs', async () => {
    const { call, st, ts, events } = await setup({
      fileMode: 'data-uri',
      config: { base64_size_limit_mb: 0.001 },
    });
    await st.put('big.bin', Buffer.alloc(5000, 1));
    for (const [tool, args] of [
      ['inject', { filename: 'big.bin' }],
      ['fetch_urls', { filename: 'big.bin' }],
    ] as const) {
      const r = await call(tool, args);
      expect(r.status).toBe('failed');
      expect(r.forModel.error?.code).toBe('E_FILE_TOO_LARGE');
      expect(r.forUi.error?.meta_data.details).toMatchObject({
        file_size_bytes: 5000,
        current_limit_bytes: 1048,
      });
    }
    expect(ts.calls).toEqual({});
    expect(types(events).filter((t) => t !== 'started' && t !== 'failed')).toEqual([]);
  });

  it('x-mcp-file: filled from the user pick, refused outside accept before the call', async () => {
    const { call, st, ts } = await setup();
    const png = await st.put('dot.png', Buffer.from(PNG_1X1, 'base64'));
    const text = await st.put('t.txt', 'text');
    const ok = await call(
      'describe_image',
      { image: 'data:image/png;base64,AAAA' },
      { fileInputs: { image: png.id } },
    );
    const image = (ts.lastArgs.describe_image as { image: string }).image;
    const parsed = parseDataUri(image);
    expect(parsed.ok && Buffer.from(parsed.value.data()).toString('base64')).toBe(PNG_1X1);
    expect(ok.transcript).toEqual({ image: 'dot.png' });
    expect(JSON.stringify(ok.forModel)).not.toContain('iVBOR');
    const gallery = await call('gallery', {}, { fileInputs: { images: [png.id, png.id] } });
    expect(gallery.forModel.results).toEqual({ count: 2 });
    const refused = await call('describe_image', {}, { fileInputs: { image: text.id } });
    expect(refused.forModel.error?.code).toBe('E_FILE_TYPE_REJECTED');
    expect(ts.calls.describe_image).toBe(1);
  });

  it('an unknown tool fails with E_INVALID_INPUT', async () => {
    const { call } = await setup();
    expect((await call('nope')).forModel.error?.code).toBe('E_INVALID_INPUT');
  });
});

describe('outputs', () => {
  it('v2.1 path, b64 and deferred artifacts plus an unlisted workspace file land in My Files', async () => {
    const { call, st, events } = await setup();
    const r = await call('produce_v21', { username: 'alice' }, { sessionId: 's1' });
    expect(r.status).toBe('finished');
    const names = r.forUi.files.map((f) => f.name);
    expect(names).toEqual(['report.html', 'data.csv', 'draft.md', 'notes.txt']);
    const expected: Record<string, string> = {
      'report.html': '<h1>Report</h1>',
      'data.csv': 'a,b\n1,2\n',
      'draft.md': '# Draft\n',
      'notes.txt': 'unlisted notes',
    };
    for (const f of r.forUi.files) expect(sha256(await st.read(f.id))).toBe(sha256(expected[f.name] ?? ''));
    expect(r.forUi.files.find((f) => f.primary)?.name).toBe('report.html');
    expect(r.forUi.files.find((f) => f.name === 'draft.md')).toMatchObject({ deferred: true });
    expect((await st.files.stat(st.owner, { name: 'report.html' })).category).toBe('report');
    expect(r.forModel).toEqual({
      results: { summary: 'done' },
      files: [
        { name: 'report.html', description: 'The report' },
        { name: 'data.csv' },
        { name: 'draft.md' },
        { name: 'notes.txt' },
      ],
      isError: false,
    });
    expect(types(events).filter((t) => t === 'file_stored')).toHaveLength(4);
    expect(types(events).at(-1)).toBe('finished');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('no detection for remote servers or when a server turns it off; listed files still arrive', async () => {
    for (const options of [{ kind: 'remote' as const }, { detect: false }]) {
      const { call, connection, st } = await setup(options);
      const r = await call('produce_v21', { username: 'alice' });
      expect(r.forUi.files.map((f) => f.name)).toEqual(['report.html', 'data.csv', 'draft.md']);
      await connection.close();
      await st.close();
      h = undefined;
    }
  });

  it('legacy arrays, returned_file_* and MCP media are stored; a link the server cannot read is reported unstored', async () => {
    const { call, st } = await setup();
    const legacy = await call('produce_legacy');
    const returned = await call('produce_returned');
    const media = await call('produce_mcp');
    expect(legacy.forUi.files.map((f) => f.name)).toEqual(['one.txt', 'two.txt']);
    expect(returned.forUi.files.map((f) => f.name)).toEqual(['analysis.txt']);
    expect(returned.forModel.results).toEqual({ analysis: 'ok' });
    expect(media.forUi.files.map((f) => [f.name, f.mime])).toEqual([
      ['image-1.png', 'image/png'],
      ['audio-1.wav', 'audio/wav'],
      ['notes.md', 'text/markdown'],
      ['blob.bin', 'application/octet-stream'],
    ]);
    const png = media.forUi.files[0];
    expect(png && sha256(await st.read(png.id))).toBe(sha256(Buffer.from(PNG_1X1, 'base64')));
    // This server has no resources capability: resources/read fails, and says so.
    expect(media.forUi.unstored).toEqual([
      expect.objectContaining({
        name: 'big.parquet',
        reason: expect.stringMatching(/resources\/read of .* failed/),
      }),
    ]);
    const all = JSON.stringify([legacy.forModel, returned.forModel, media.forModel]);
    expect(all).not.toContain(PNG_1X1.slice(0, 12));
    expect(all).not.toContain(Buffer.from('one').toString('base64'));
  });

  it('path escapes are rejected with E_INVALID_PATH and nothing is stored or read', async () => {
    const { call, st } = await setup();
    const r = await call('escape', { username: 'alice' });
    expect(r.forUi.files).toEqual([]);
    expect(r.forUi.rejected.map((x) => [x.name, x.code])).toEqual([
      ['up.txt', 'E_INVALID_PATH'],
      ['passwd', 'E_INVALID_PATH'],
      ['link.txt', 'E_INVALID_PATH'],
      ['pipe', 'E_INVALID_PATH'],
    ]);
    expect((await st.files.list(st.owner)).items).toEqual([]);
    const model = JSON.stringify(r.forModel);
    expect(model).not.toContain('/etc');
    expect(model).not.toContain(st.workspaceRoot);
    expect(r.forModel.notStored?.map((n) => n.reason)).toEqual(
      Array(4).fill('File operation outside allowed directory'),
    );
  });
});

describe('watchdog and cancel', () => {
  it('times out with notices in order, kills the local server and answers E_TIMEOUT', async () => {
    const { call, ts, clock, events, connection } = await setup();
    const pending = call('slow');
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    await ts.slow.progress(1, 4, 'Processing chunk 1/4');
    await waitFor(() => events.some((e) => e.type === 'progress'), 'progress');
    clock.advanceSeconds(30);
    const r = await pending;
    expect(r.status).toBe('failed');
    expect(r.forUi.error?.meta_data.details).toMatchObject({
      timeout_seconds: 30,
      last_progress: 'Processing chunk 1/4',
    });
    expect(connection.kills).toHaveLength(1);
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
    expect(notices).toEqual([...TIMEOUT_NOTICES.map((n) => n.message), TIMEOUT_MESSAGE]);
    expect(types(events)).toEqual([
      'started',
      'arguments_prepared',
      'progress',
      'notice',
      'notice',
      'notice',
      'notice',
      'failed',
    ]);
    expect(events.find((e) => e.type === 'progress')).toMatchObject({ progress: 1, total: 4, percent: 25 });
  });

  it("the user's cancel ends the call as cancelled", async () => {
    const { call, ts, events } = await setup();
    const controller = new AbortController();
    const pending = call('slow', {}, { signal: controller.signal, callId: 'call-42' });
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({
      callId: 'call-42',
      status: 'cancelled',
      forModel: { error: { code: 'E_CANCELLED' } },
    });
    await ts.slow.cancelled;
    expect(events.at(-1)).toMatchObject({ type: 'cancelled', callId: 'call-42' });
  });
});
