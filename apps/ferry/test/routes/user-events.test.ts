// GET /api/events: one stream per user with every event of their calls and every change to their
// files, over real HTTP against the example servers; another user's stream stays silent.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream, type SseEvent } from '../../src/cli/sse-reader.js';
import { collectSse, openSse } from '../support/sse.js';
import { ALICE, BOB, http, PROXY_AUTH, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\n';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { auth: PROXY_AUTH } });
}, 60_000);
afterAll(async () => t?.close());

interface UserEventJson {
  id: number;
  type: 'call' | 'files_changed';
  reason?: string;
  fileIds?: string[];
  event?: { type: string; callId: string; file?: { id: string; name: string } };
}

function openStream(headers: Record<string, string>): Promise<IncomingMessage> {
  return openSse(t.url, '/api/events', headers);
}

/** Collects events until `until` says so. */
function collect(
  response: IncomingMessage,
  until: (all: UserEventJson[]) => boolean,
): Promise<UserEventJson[]> {
  return collectSse(
    response,
    (event) => event.id,
    (_event, all) => until(all),
  );
}

describe('GET /api/events', () => {
  it("carries the user's uploads, renames, deletes and every event of their calls, and nothing of others", async () => {
    const alice = await openStream(ALICE);
    const bob = await openStream(BOB);
    expect(alice.statusCode).toBe(200);
    expect(alice.headers['content-type']).toMatch(/^text\/event-stream/);
    // Headers the app's hooks set before the stream took over the response still go out.
    expect(alice.headers['referrer-policy']).toBe('no-referrer');
    const bobEvents: UserEventJson[] = [];
    void parseStream(bob, (event: SseEvent) => bobEvents.push(JSON.parse(event.data))).catch(() => undefined);

    const seen = collect(alice, (all) => all.some((e) => e.type === 'call' && e.event?.type === 'finished'));
    const file = await uploadOk(t.url, 'sales.csv', CSV, ALICE);
    const renamed = await http(t.url, `/api/files/${file.id}`, {
      method: 'PATCH',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'q3.csv' }),
    });
    expect(renamed.status).toBe(200);
    const started = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'report', tool: 'csv_report', arguments: { filename: 'q3.csv' } }),
    });
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    const events = await seen;

    expect(events[0]).toMatchObject({ type: 'files_changed', reason: 'uploaded', fileIds: [file.id] });
    expect(events[1]).toMatchObject({ type: 'files_changed', reason: 'renamed', fileIds: [file.id] });
    const callEvents = events.filter((e) => e.type === 'call').map((e) => e.event);
    expect(callEvents.every((e) => e?.callId === callId)).toBe(true);
    expect(callEvents[0]?.type).toBe('started');
    const stored = callEvents.filter((e) => e?.type === 'file_stored').map((e) => e?.file?.id);
    expect(stored.length).toBeGreaterThan(0);
    const storedChanges = events.filter((e) => e.type === 'files_changed' && e.reason === 'stored');
    expect(storedChanges.flatMap((e) => e.fileIds)).toEqual(stored);
    // Ids grow by one per event of this user.
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => (events[0]?.id ?? 0) + i));

    // A delete, and a reconnect that replays from an id.
    const lastId = events.at(-1)?.id ?? 0;
    expect((await http(t.url, `/api/files/${file.id}`, { method: 'DELETE', headers: ALICE })).status).toBe(
      200,
    );
    const again = await openStream({ ...ALICE, 'last-event-id': String(lastId) });
    const replayed = await collect(again, (all) => all.length >= 1);
    expect(replayed[0]).toMatchObject({
      id: lastId + 1,
      type: 'files_changed',
      reason: 'deleted',
      fileIds: [file.id],
    });

    bob.destroy();
    expect(bobEvents).toEqual([]);
  });

  it('a failed change is not announced', async () => {
    const response = await openStream(ALICE);
    const seen = collect(response, (all) => all.some((e) => e.reason === 'uploaded'));
    const missing = await http(t.url, '/api/files/7b0f2c4e-8a1d-4c3e-9f5a-1b2c3d4e5f60', {
      method: 'DELETE',
      headers: ALICE,
    });
    expect(missing.status).toBe(404);
    await uploadOk(t.url, 'marker.txt', 'x', ALICE);
    // A new stream starts live, and the 404 delete was not announced.
    expect((await seen).map((e) => e.reason)).toEqual(['uploaded']);
  });
});
