// GET /api/calls/{id}?form=v2.1: a settled call as a tool contract v2.1 output with §6.2's processed
// artifacts, against a real app. base64_size_limit_mb is set to 16 bytes (it is a number of MiB,
// fractions allowed), so files of 0 B, 1 B, exactly the limit and the limit + 1 show both sides:
// b64 that decodes to exactly the tool's bytes, and above the limit an `s3_ref` whose URL
// downloads them. Also failures (§12 form), meta_data and retryable in the default answer and the
// `finished` event, and what the route refuses.
import { createHash } from 'node:crypto';
import { truncate } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { get } from 'node:http';
import { join } from 'node:path';
import { CallV21FormSchema } from '@ferry/contract';
import { scriptServer } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import {
  ALICE,
  BOB,
  exampleServers,
  http,
  PROXY_AUTH,
  settledCall,
  startTestApp,
  type TestApp,
} from '../support/start-app.js';

const LIMIT = 16;

let t: TestApp;
beforeAll(async () => {
  const { slow } = await exampleServers();
  t = await startTestApp({
    app: { auth: PROXY_AUTH },
    storage: { base64_size_limit_mb: LIMIT / (1024 * 1024) },
    servers: {
      slow,
      sized: {
        ...scriptServer('sized'),
        fileMode: 'path',
      },
    },
  });
}, 60_000);
afterAll(async () => t?.close());

/** The sized example's bytes: byte i is PATTERN[i % 251], PATTERN[k] = (k * 97 + 13) % 256. */
function patternBytes(size: number): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, i) => (((i % 251) * 97 + 13) % 256) as number));
}
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function call(server: string, tool: string, args: Record<string, unknown>, headers = ALICE) {
  const started = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ server, tool, arguments: args }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  const detail = await settledCall<{ status: string; response: Record<string, unknown> }>(
    t.url,
    callId,
    headers,
  );
  return { callId, detail };
}

async function v21Form(callId: string, headers = ALICE) {
  const result = await http(t.url, `/api/calls/${callId}?form=v2.1`, { headers });
  expect(result.status, result.text).toBe(200);
  return { result, form: CallV21FormSchema.parse(result.json()) };
}

describe('artifacts around the base64 limit (16 bytes)', () => {
  it('0 B, 1 B and exactly the limit inline as b64 of exactly the bytes; the limit + 1 as a reference', async () => {
    const sizes = [0, 1, LIMIT, LIMIT + 1];
    const { callId, detail } = await call('sized', 'sized_files', { sizes, deferred_sizes: [5, 40] });
    expect(detail.status).toBe('finished');
    const { result, form } = await v21Form(callId);

    // Streamed: chunked, no length known up front.
    expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(result.headers['transfer-encoding']).toBe('chunked');
    expect(result.headers['content-length']).toBeUndefined();

    expect(form.results).toEqual({ files: 4, deferred: 2 });
    expect(form.meta_data).toEqual({ sizes, deferred_sizes: [5, 40] });
    expect(form.retryable).toBe(true);
    expect(form.display).toEqual({ open_canvas: false, storage_action: 'store' });
    expect(form.artifacts.map((a) => [a.name, a.size])).toEqual(
      sizes.map((s, i) => [`file-${i}-${s}.bin`, s]),
    );

    for (const artifact of form.artifacts.slice(0, 3)) {
      const expected = patternBytes(artifact.size);
      expect(artifact.s3_ref).toBeUndefined();
      expect(typeof artifact.b64).toBe('string');
      const decoded = Buffer.from(artifact.b64 as string, 'base64');
      expect(decoded.equals(expected), artifact.name).toBe(true);
      expect(sha256(decoded)).toBe(sha256(expected));
      expect(artifact.b64).toBe(expected.toString('base64'));
    }
    expect(form.artifacts[0]).toMatchObject({
      b64: '',
      auto_open: true,
      category: 'dataset',
      mime: 'application/octet-stream',
    });

    const over = form.artifacts[3];
    expect(over?.b64).toBeUndefined();
    expect(over?.s3_ref).toMatchObject({ version: 1, internal: true });
    const ref = over?.s3_ref as { file_id: string; url: string };
    expect(ref.url).toBe(`/api/files/${ref.file_id}/content`);
    const downloaded = await http(t.url, ref.url, { headers: ALICE });
    expect(downloaded.status).toBe(200);
    expect(downloaded.body.equals(patternBytes(LIMIT + 1))).toBe(true);
    // The reference is the user's file, nobody else's.
    expect((await http(t.url, ref.url, { headers: BOB })).status).toBe(404);

    // Deferred artifacts (§7) follow the same rule, with their reason, next steps and expiry.
    expect(form.deferred_artifacts.map((d) => [d.name, d.size])).toEqual([
      ['draft-0-5.bin', 5],
      ['draft-1-40.bin', 40],
    ]);
    const [small, large] = form.deferred_artifacts;
    expect(small).toMatchObject({ reason: 'needs_editing', next_actions: ['Edit it'] });
    expect(Date.parse(small?.expires_at as string) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(Buffer.from(small?.b64 as string, 'base64').equals(patternBytes(5))).toBe(true);
    expect(large?.b64).toBeUndefined();
    const largeRef = large?.s3_ref as { url: string };
    expect((await http(t.url, largeRef.url, { headers: ALICE })).body.equals(patternBytes(40))).toBe(true);
  });

  it('keeps the default form as it was, references only, and lists a file deleted since as unavailable', async () => {
    const { callId, detail } = await call('sized', 'sized_files', { sizes: [3, 20] });
    const files = (detail.response.forUi as { files: { id: string; name: string }[] }).files;
    expect(JSON.stringify(detail)).not.toContain('"b64"'); // the key; a UUID may hold 'b64'
    const deleted = await http(t.url, `/api/files/${files[1]?.id}`, { method: 'DELETE', headers: ALICE });
    expect(deleted.status).toBeLessThan(300);
    const { form } = await v21Form(callId);
    expect(form.artifacts[0]?.b64).toBe(patternBytes(3).toString('base64'));
    expect(form.artifacts[1]).toMatchObject({
      name: 'file-1-20.bin',
      unavailable: 'deleted from My Files since the call',
    });
    expect(form.artifacts[1]?.s3_ref).toBeUndefined();
  });
});

describe('a stored blob that is not what its catalog row says', () => {
  it('breaks the answer instead of ending it with wrong bytes, and Ferry keeps answering', async () => {
    const { callId, detail } = await call('sized', 'sized_files', { sizes: [10] });
    const [file] = (detail.response.forUi as { files: { id: string }[] }).files;
    const owner = await t.storage.files.ensureUser('alice');
    const record = await t.storage.files.stat(owner, { id: file?.id as string });
    // Cut short on disk behind the catalog's back (the local driver keeps `<root>/<key>`).
    await truncate(join(t.dir, 'data', 'blobs', ...record.blobKey.split('/')), 4);
    await expect(http(t.url, `/api/calls/${callId}?form=v2.1`, { headers: ALICE })).rejects.toThrow(
      /aborted|socket hang up|ECONNRESET/,
    );
    expect((await http(t.url, `/api/calls/${callId}`, { headers: ALICE })).status).toBe(200);
  });
});

describe('meta_data and retryable', () => {
  it('in the default answer, the finished event and the v2.1 form of a success', async () => {
    const key = `ok-${Date.now()}`;
    const { callId, detail } = await call('slow', 'flaky', { key, failures: 0 });
    expect(detail.response.forUi).toMatchObject({
      metaData: { key, attempt: 1, failed_before: 0 },
      retryable: true,
    });
    expect(detail.response.forModel).toMatchObject({ metaData: { key, attempt: 1, failed_before: 0 } });
    const finished = (await events(callId)).find((e) => e.type === 'finished');
    expect(finished).toMatchObject({
      isError: false,
      files: 0,
      metaData: { key, attempt: 1, failed_before: 0 },
      retryable: true,
    });
    const { form } = await v21Form(callId);
    expect(form).toEqual({
      results: { status: 'ok', attempt: 1 },
      meta_data: { key, attempt: 1, failed_before: 0 },
      retryable: true,
      artifacts: [],
      display: { open_canvas: false, storage_action: 'store' },
      deferred_artifacts: [],
    });
  });

  it("a tool's retryable failure: the §12 facts in meta_data, retryable true", async () => {
    const key = `fail-${Date.now()}`;
    const { callId, detail } = await call('slow', 'flaky', { key, failures: 1 });
    expect(detail.status).toBe('finished');
    expect(detail.response.forModel).toMatchObject({
      isError: true,
      error: { code: 'E_UPSTREAM_BUSY', retryable: true },
    });
    const finished = (await events(callId)).find((e) => e.type === 'finished');
    expect(finished).toMatchObject({
      isError: true,
      retryable: true,
      metaData: { error_code: 'E_UPSTREAM_BUSY' },
    });
    const { form } = await v21Form(callId);
    expect(form.results).toEqual({ error: 'Upstream busy (failure 1 of 1)' });
    expect(form.meta_data).toEqual({
      is_error: true,
      reason: 'TransientFailure',
      error_code: 'E_UPSTREAM_BUSY',
      details: { attempt: 1, suggestion: 'Try again' },
      retryable: true,
    });
    expect(form.retryable).toBe(true);
  });

  it('a call that failed as a whole answers its §12 envelope', async () => {
    const { callId, detail } = await call('slow', 'no_such_tool', {});
    expect(detail.status).toBe('failed');
    const { form } = await v21Form(callId);
    expect(form.results).toEqual({ error: 'Unknown tool slow/no_such_tool' });
    expect(form.meta_data).toMatchObject({ is_error: true, error_code: 'E_INVALID_INPUT', retryable: false });
    expect(form.retryable).toBe(false);
  });
});

describe('what the route refuses', () => {
  it('409 while the call runs, 400 for an unknown form or parameter, 404 for another user', async () => {
    const started = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 30, steps: 30 } }),
    });
    const { callId } = started.json<{ callId: string }>();
    try {
      const running = await http(t.url, `/api/calls/${callId}?form=v2.1`, { headers: ALICE });
      expect(running.status).toBe(409);
      expect(running.json<{ meta_data: { error_code: string } }>().meta_data.error_code).toBe('E_CONFLICT');
      expect((await http(t.url, `/api/calls/${callId}?form=v2`, { headers: ALICE })).status).toBe(400);
      expect((await http(t.url, `/api/calls/${callId}?from=v2.1`, { headers: ALICE })).status).toBe(400);
      expect((await http(t.url, `/api/calls/${callId}?form=v2.1`, { headers: BOB })).status).toBe(404);
    } finally {
      await http(t.url, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE });
    }
  });
});

async function events(callId: string): Promise<{ type: string; [key: string]: unknown }[]> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), { headers: ALICE }, resolve).on('error', reject);
  });
  const all: { type: string }[] = [];
  // A settled call replays its events and ends the stream.
  await parseStream(response, (event) => {
    all.push(JSON.parse(event.data) as { type: string });
  });
  return all;
}
