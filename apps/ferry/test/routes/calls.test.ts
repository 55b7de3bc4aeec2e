// Tool calls over real HTTP against the example servers of ferry.config.json: start, follow the
// server-sent events, fetch the outcome, cancel mid-call (slow example), reconnect with
// Last-Event-ID, and one user's calls hidden from another.
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSse, openSse } from '../support/sse.js';
import {
  ALICE,
  BOB,
  type FileJson,
  http,
  PROXY_AUTH,
  settledCall,
  startCallOk,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\n';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { auth: PROXY_AUTH } });
}, 60_000);
afterAll(async () => t?.close());

interface CallResponseJson {
  status: string;
  forUi: { files: { id: string; name: string }[]; error?: { meta_data: { error_code: string } } };
}

interface CallEventJson {
  type: string;
  seq: number;
  callId: string;
  [key: string]: unknown;
}

function startCall(body: unknown, headers: Record<string, string> = ALICE): Promise<string> {
  return startCallOk(t.url, body, headers);
}

function openEvents(callId: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return openSse(t.url, `/api/calls/${callId}/events`, { ...ALICE, ...headers });
}

/** Reads events until `stop` says so (or the stream ends); then drops the connection. */
function readEvents(
  response: IncomingMessage,
  stop?: (event: CallEventJson, all: CallEventJson[]) => boolean,
): Promise<CallEventJson[]> {
  return collectSse(response, (event) => event.seq, stop);
}

async function outcome(callId: string, headers: Record<string, string> = ALICE) {
  return settledCall<{ status: string; response: CallResponseJson | null }>(t.url, callId, headers);
}

describe('a call to the report example', () => {
  it('runs in the background, streams its events and answers with the outcome', async () => {
    await uploadOk(t.url, 'sales.csv', CSV, { ...ALICE, 'content-type': 'text/csv' });
    const callId = await startCall({
      server: 'report',
      tool: 'csv_report',
      arguments: { filename: 'sales.csv', title: 'Q3', username: 'mallory' },
    });
    const response = await openEvents(callId);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    const events = await readEvents(response);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['started', 'arguments_prepared', 'file_stored', 'finished']),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const prepared = events.find((e) => e.type === 'arguments_prepared');
    expect(prepared?.transcript).toMatchObject({ filename: 'sales.csv', username: 'alice' });

    const detail = await outcome(callId);
    expect(detail.status).toBe('finished');
    const files = detail.response?.forUi.files ?? [];
    expect(files.map((f) => f.name).sort()).toEqual(['chart.png', 'notes.md', 'report.html']);
    // No host paths, no blob keys.
    const text = JSON.stringify({ events, detail });
    expect(text).not.toContain(t.dir);
    expect(text).not.toMatch(/blobKey|users\/[0-9a-f-]{36}\//);

    const html = files.find((f) => f.name === 'report.html') as { id: string };
    const download = await http(t.url, `/api/files/${html.id}/content`, { headers: ALICE });
    expect(download.headers['content-disposition']).toMatch(/^attachment/);
    expect(download.text).toContain('North');
  });

  it('another user cannot see, follow or cancel it; unknown ids are 404', async () => {
    const callId = await startCall({
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 0.2, steps: 2 },
    });
    for (const [method, path] of [
      ['GET', `/api/calls/${callId}`],
      ['GET', `/api/calls/${callId}/events`],
      ['DELETE', `/api/calls/${callId}`],
    ] as const) {
      expect((await http(t.url, path, { method, headers: BOB })).status, `${method} ${path}`).toBe(404);
    }
    const bobCalls = (await http(t.url, '/api/calls', { headers: BOB })).json<{ items: unknown[] }>();
    expect(bobCalls.items).toEqual([]);
    expect(
      (await http(t.url, '/api/calls/7b0f2c4e-8a1d-4c3e-9f5a-1b2c3d4e5f60', { headers: ALICE })).status,
    ).toBe(404);
    await outcome(callId);
  });

  it('an unknown server is a 404 and starts nothing', async () => {
    const result = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'nope', tool: 'x' }),
    });
    expect(result.status).toBe(404);
  });

  it('an unknown tool fails as a call (failed event, E_INVALID_INPUT)', async () => {
    const callId = await startCall({ server: 'slow', tool: 'no_such_tool' });
    const events = await readEvents(await openEvents(callId));
    expect(events.at(-1)).toMatchObject({ type: 'failed', code: 'E_INVALID_INPUT' });
    expect((await outcome(callId)).status).toBe('failed');
  });
});

describe('cancel', () => {
  it('DELETE stops a slow call mid-way: cancelled event, cancelled outcome, quickly', async () => {
    const callId = await startCall({
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 30, steps: 60 },
    });
    const response = await openEvents(callId);
    const started = Date.now();
    let cancelled = false;
    const events = await readEvents(response, (event) => {
      if (event.type === 'progress' && !cancelled) {
        cancelled = true;
        void http(t.url, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE }).then((r) =>
          expect(r.status).toBe(202),
        );
      }
      return false;
    });
    expect(events.at(-1)).toMatchObject({ type: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const detail = await outcome(callId);
    expect(detail.status).toBe('cancelled');
    expect(detail.response?.forUi.error?.meta_data.error_code).toBe('E_CANCELLED');
    // Cancelling a settled call changes nothing.
    const again = await http(t.url, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE });
    expect([again.status, again.json().status]).toEqual([200, 'cancelled']);
  });
});

describe('SSE reconnect', () => {
  it('Last-Event-ID resumes after the last event seen, without gaps or repeats; a settled call then answers 204', async () => {
    const callId = await startCall({
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 1.5, steps: 6 },
    });
    const first = await readEvents(await openEvents(callId), (_event, all) => all.length === 3);
    expect(first.map((e) => e.seq)).toEqual([1, 2, 3]);
    // The browser reloads: a new connection with the last id it saw.
    const rest = await readEvents(await openEvents(callId, { 'last-event-id': '3' }));
    const all = [...first, ...rest];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.filter((e) => e.type === 'progress')).toHaveLength(6);
    expect(all.at(-1)?.type).toBe('finished');

    // After the end: nothing more → 204 (EventSource stops reconnecting); from the start → the full replay.
    const last = String(all.at(-1)?.seq);
    expect((await openEvents(callId, { 'last-event-id': last })).statusCode).toBe(204);
    const replay = await readEvents(await openEvents(callId));
    expect(replay.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    const viaQuery = await new Promise<IncomingMessage>((resolve) =>
      get(new URL(`/api/calls/${callId}/events?lastEventId=5`, t.url), { headers: ALICE }, resolve),
    );
    expect((await readEvents(viaQuery)).map((e) => e.seq)).toEqual(
      all.filter((e) => e.seq > 5).map((e) => e.seq),
    );
  });

  it('a malformed Last-Event-ID is a 400', async () => {
    const callId = await startCall({
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 0, steps: 1 },
    });
    const response = await openEvents(callId, { 'last-event-id': 'abc' });
    expect(response.statusCode).toBe(400);
    response.resume();
  });
});

describe('tools', () => {
  it('lists servers without commands or paths, and tools with injected parameters marked', async () => {
    const servers = (await http(t.url, '/api/servers', { headers: ALICE })).json<{
      items: Record<string, unknown>[];
    }>();
    expect(servers.items.map((s) => s.name)).toContain('report');
    expect(JSON.stringify(servers)).not.toMatch(/examples\/servers|"command"|"args"|"url":|"env"|"headers"/);

    const tools = (await http(t.url, '/api/servers/report/tools', { headers: ALICE })).json<{
      items: {
        name: string;
        injected: { name: string; kind: string }[];
        inputSchema: { properties: Record<string, Record<string, unknown>> };
      }[];
    }>();
    const report = tools.items.find((tool) => tool.name === 'csv_report');
    expect(report?.injected).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'username', kind: 'username', input: 'host', hiddenFromModel: true }),
        expect.objectContaining({ name: 'filename', kind: 'filename', input: 'file-name' }),
      ]),
    );
    expect(report?.inputSchema.properties.username?.['x-ferry-injected']).toBe('username');

    const xfile = (await http(t.url, '/api/servers/xfile/tools', { headers: ALICE })).json<{
      items: { injected: { kind: string }[]; fileInputs: unknown[] }[];
    }>();
    expect(xfile.items.some((tool) => tool.injected.some((p) => p.kind === 'x-mcp-file'))).toBe(true);
    expect(xfile.items.some((tool) => tool.fileInputs.length > 0)).toBe(true);

    const inject = (await http(t.url, '/api/servers/inject/tools', { headers: ALICE })).json<{
      items: { injected: { kind: string }[] }[];
    }>();
    expect(inject.items.some((tool) => tool.injected.some((p) => p.kind === 'file_data_base64'))).toBe(true);
  });

  it('unknown and disabled servers', async () => {
    expect((await http(t.url, '/api/servers/nope/tools', { headers: ALICE })).status).toBe(404);
    expect((await http(t.url, '/api/servers/report-http/tools', { headers: ALICE })).status).toBe(409);
  });
});

describe('x-mcp-file inputs', () => {
  it('passes a picked file (fileInputs) to the xfile example', async () => {
    const tools = (await http(t.url, '/api/servers/xfile/tools', { headers: ALICE })).json<{
      items: { name: string; fileInputs: { name: string; multiple: boolean; accept?: string[] }[] }[];
    }>();
    const tool = tools.items.find(
      (candidate) => candidate.fileInputs.length === 1 && !candidate.fileInputs[0]?.multiple,
    );
    expect(tool).toBeDefined();
    const input = tool?.fileInputs[0] as { name: string; accept?: string[] };
    const accepts = (input.accept ?? []).join(',');
    const file: FileJson = accepts.includes('image')
      ? await uploadOk(
          t.url,
          'pixel.png',
          Buffer.from(
            '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
              '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
            'hex',
          ),
          ALICE,
        )
      : await uploadOk(t.url, 'note.txt', 'hello', ALICE);
    const callId = await startCall({
      server: 'xfile',
      tool: tool?.name,
      fileInputs: { [input.name]: file.id },
    });
    const events = await readEvents(await openEvents(callId));
    const prepared = events.find((e) => e.type === 'arguments_prepared') as {
      handedOver?: { fileId: string }[];
    };
    expect(prepared?.handedOver?.map((h) => h.fileId)).toContain(file.id);
  });
});
