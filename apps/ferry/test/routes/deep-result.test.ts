// A tool result nested 100,000 levels deep, through the whole API: the call fails with a clear
// error at intake instead of breaking every later reader (a recursive walker or JSON.stringify
// throws RangeError on it), so GET /api/calls/{id} answers 200 with that error, and the API keeps
// answering everything else. The flood example builds the structure as a string: as a JSON text
// block (parsed by the host) and as structuredContent (raw on the JSON-RPC line).

import type { IncomingMessage } from 'node:http';
import { get } from 'node:http';
import { scriptServer } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import { http, startCallOk, startTestApp, type TestApp } from '../support/start-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    servers: {
      flood: {
        ...scriptServer('flood'),
      },
    },
  });
}, 60_000);
afterAll(async () => t?.close());

function startCall(tool: string, args: Record<string, unknown>): Promise<string> {
  return startCallOk(t.url, { server: 'flood', tool, arguments: args });
}

/** Follows the call's events until it settles; resolves with the last event's type. */
async function settled(callId: string): Promise<string> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), resolve).on('error', reject);
  });
  let last = '';
  await parseStream(response, (event) => {
    last = event.event;
    if (['finished', 'failed', 'cancelled'].includes(last)) response.destroy();
  }).catch(() => undefined);
  return last;
}

interface CallDetail {
  status: string;
  response: {
    forModel: { isError: boolean; error?: { code: string; message: string } };
    forUi: { error?: { results: { error: string }; meta_data: { error_code: string; retryable: boolean } } };
  } | null;
}

describe('a result nested 100,000 levels deep', () => {
  it.each(['text', 'structured'])('as %s: the call fails clearly and the API keeps answering', async (as) => {
    const callId = await startCall('deep_json', { depth: 100_000, as });
    expect(await settled(callId)).toBe('failed');

    const detail = await http(t.url, `/api/calls/${callId}`);
    expect(detail.status, detail.text.slice(0, 500)).toBe(200);
    const body = detail.json<CallDetail>();
    expect(body.status).toBe('failed');
    expect(body.response?.forUi.error?.meta_data).toMatchObject({
      error_code: 'E_TOOL_ERROR',
      retryable: false,
    });
    expect(body.response?.forUi.error?.results.error).toMatch(/nested deeper than 64 levels/);
    expect(body.response?.forModel.error?.message).toMatch(/nested deeper than 64 levels/);

    // Everything else still answers: the list of calls, the status, another call.
    expect((await http(t.url, '/api/calls')).status).toBe(200);
    expect((await http(t.url, '/api/status')).status).toBe(200);
    const next = await startCall('echo', { text: 'fine' });
    expect(await settled(next)).toBe('finished');
    expect((await http(t.url, `/api/calls/${next}`)).json<CallDetail>().status).toBe('finished');
  });

  it('a result 60 levels deep is still read whole', async () => {
    const callId = await startCall('deep_json', { depth: 60, as: 'text' });
    expect(await settled(callId)).toBe('finished');
    const body = (await http(t.url, `/api/calls/${callId}`)).json<CallDetail>();
    expect(body.response?.forModel.isError).toBe(false);
  });
});
