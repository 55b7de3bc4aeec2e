// calls.maxRunningPerUser over HTTP: POST /api/calls answers 429 with the error envelope once the
// user has that many calls running, counts per user, and a settled call frees its slot.
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import { ALICE, BOB, http, PROXY_AUTH, startTestApp, type TestApp } from '../support/start-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { auth: PROXY_AUTH, calls: { maxRunningPerUser: 2 } } });
}, 60_000);
afterAll(async () => t?.close());

const SLOW = { server: 'slow', tool: 'slow_task', arguments: { seconds: 30, steps: 60 } };

const start = (headers: Record<string, string>) =>
  http(t.url, '/api/calls', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(SLOW),
  });

const cancel = (callId: string, headers: Record<string, string>) =>
  http(t.url, `/api/calls/${callId}`, { method: 'DELETE', headers });

/** Reads a call's event stream to its end (it ends once the call has settled); the event types. */
async function followToEnd(callId: string, headers: Record<string, string>): Promise<string[]> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), { headers }, resolve).on('error', reject);
  });
  const types: string[] = [];
  await parseStream(response, (event) => {
    types.push(event.event);
  });
  return types;
}

describe('calls.maxRunningPerUser', () => {
  it('refuses a call beyond the limit with 429, per user, until one settles', async () => {
    const first = await start(ALICE);
    const second = await start(ALICE);
    expect([first.status, second.status]).toEqual([202, 202]);
    const aliceCalls = [first, second].map((r) => r.json<{ callId: string }>().callId);

    const refused = await start(ALICE);
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({
      results: { error: 'At most 2 calls may run at once' },
      meta_data: { error_code: 'E_TOO_MANY_CALLS', details: { running: 2 } },
    });
    const listed = await http(t.url, '/api/calls', { headers: ALICE });
    expect(listed.json<{ total: number }>().total).toBe(2);

    // Bob has his own slots.
    const bobs = await start(BOB);
    expect(bobs.status).toBe(202);

    // Once one of Alice's has settled (cancelled), she may start one more, and only one.
    const [firstId, secondId] = aliceCalls as [string, string];
    expect((await cancel(firstId, ALICE)).status).toBe(202);
    expect((await followToEnd(firstId, ALICE)).at(-1)).toBe('cancelled');
    const third = await start(ALICE);
    expect(third.status).toBe(202);
    expect((await start(ALICE)).status).toBe(429);

    for (const [callId, headers] of [
      [secondId, ALICE],
      [third.json<{ callId: string }>().callId, ALICE],
      [bobs.json<{ callId: string }>().callId, BOB],
    ] as const) {
      expect((await cancel(callId, headers)).status).toBe(202);
      expect((await followToEnd(callId, headers)).at(-1)).toBe('cancelled');
    }
  });
});
