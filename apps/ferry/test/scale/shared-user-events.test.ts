// The user's event stream across two instances sharing Redis (issue 22): what happens on A (an
// upload, a rename, a call) shows on B's GET /api/events and the other way round, with one id
// sequence per user however the two publish, and a reconnect on either replays from the shared
// stream. Each test has a user of its own, so its ids start at 1.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { collectSse, openSse } from '../support/sse.js';
import { asUser, http, startCallOk, uploadOk } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

interface UserEventJson {
  id: number;
  at: string;
  type: 'call' | 'files_changed';
  reason?: string;
  fileIds?: string[];
  event?: { type: string; callId: string; seq: number };
}

const ctx = useTestCluster(() => startTestCluster());

function openStream(base: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return openSse(base, '/api/events', headers);
}

/** Events until `until` says so (then the connection is dropped). */
function collect(
  response: IncomingMessage,
  until: (all: UserEventJson[]) => boolean,
): Promise<UserEventJson[]> {
  expect(response.statusCode).toBe(200);
  return collectSse(
    response,
    (event) => event.id,
    (_event, all) => until(all),
  );
}

const uploads = (all: UserEventJson[]) =>
  all.filter((e) => e.type === 'files_changed' && e.reason === 'uploaded');

describe('user events shared through Redis', () => {
  it('an upload and a rename through A reach the stream on B', async () => {
    const user = asUser('carol');
    const onB = collect(await openStream(ctx.b, user), (all) => all.some((e) => e.reason === 'renamed'));
    // B's stream is following once its headers are out: what A publishes from now on reaches it.
    let file: { id: string } | undefined;
    const renamedOnA = async () => {
      file = await uploadOk(ctx.a, 'sales.csv', 'region,sales\nNorth,1\n', user);
      const renamed = await http(ctx.a, `/api/files/${file.id}`, {
        method: 'PATCH',
        headers: { ...user, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'q3.csv' }),
      });
      expect(renamed.status).toBe(200);
    };
    await renamedOnA();
    const events = await onB;
    expect(events).toEqual([
      expect.objectContaining({ id: 1, type: 'files_changed', reason: 'uploaded', fileIds: [file?.id] }),
      expect.objectContaining({ id: 2, type: 'files_changed', reason: 'renamed', fileIds: [file?.id] }),
    ]);
  });

  it("a call started on B shows on A's stream, every event of it once and in order", async () => {
    const user = asUser('dave');
    const onA = collect(await openStream(ctx.a, user), (all) =>
      all.some((e) => e.type === 'call' && e.event?.type === 'finished'),
    );
    const started = await http(ctx.b, '/api/calls', {
      method: 'POST',
      headers: { ...user, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0.2, steps: 2 } }),
    });
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    const calls = (await onA).filter((e) => e.type === 'call');
    expect(calls.every((e) => e.event?.callId === callId)).toBe(true);
    const seqs = calls.map((e) => e.event?.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(calls[0]?.event?.type).toBe('started');
    expect(calls.filter((e) => e.event?.type === 'progress')).toHaveLength(2);
    expect(calls.at(-1)?.event?.type).toBe('finished');
  });

  it("a file uploaded through A and a tool run on B over it: A's stream shows the upload, the call and its output", async () => {
    const user = asUser('fay');
    const onA = collect(
      await openStream(ctx.a, user),
      (all) =>
        all.some((e) => e.type === 'files_changed' && e.reason === 'stored') &&
        all.some((e) => e.type === 'call' && e.event?.type === 'finished'),
    );
    const upload = await uploadOk(ctx.a, 'notes.txt', 'alpha\nbeta\n', user);
    const callId = await startCallOk(
      ctx.b,
      {
        server: 'inject',
        tool: 'analyze_document',
        arguments: { instructions: 'count', filename: 'notes.txt' },
      },
      user,
    );
    const events = await onA;
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'files_changed', reason: 'uploaded' });
    const calls = events.filter((e) => e.type === 'call');
    expect(calls.every((e) => e.event?.callId === callId)).toBe(true);
    expect(calls[0]?.event?.type).toBe('started');
    expect(calls.map((e) => e.event?.type)).toContain('finished');
    // The output B stored is the file A's stream announces, and A serves it.
    const stored = events.find((e) => e.reason === 'stored');
    const output = stored?.fileIds?.[0] as string;
    expect(output).toBeTruthy();
    expect(output).not.toBe(upload.id);
    const served = await http(ctx.a, `/api/files/${output}`, { headers: user });
    expect(served.status, served.text).toBe(200);
    expect(served.json<{ name: string }>().name).toMatch(/^analysis_notes/);
  });

  it('publishes racing on A and B get one growing id sequence, the same on both; a reconnect replays the rest', async () => {
    const user = asUser('erin');
    const COUNT = 8;
    const onA = collect(await openStream(ctx.a, user), (all) => uploads(all).length >= COUNT);
    const onB = collect(await openStream(ctx.b, user), (all) => uploads(all).length >= COUNT);
    await Promise.all(
      Array.from({ length: COUNT }, (_, i) => uploadOk(i % 2 ? ctx.b : ctx.a, `f${i}.txt`, String(i), user)),
    );
    const [seenOnA, seenOnB] = [await onA, await onB];
    // Consecutive ids from 1, none repeated, in the same order on both instances.
    const ids = seenOnA.map((e) => e.id);
    expect(ids).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
    expect(seenOnB.map((e) => e.id)).toEqual(ids);
    expect(seenOnB.map((e) => e.at)).toEqual(seenOnA.map((e) => e.at));

    // Reconnect on A from the third: exactly the later ones, then the live one, no repeat.
    const from = 3;
    const last = COUNT;
    const again = await openStream(ctx.a, { ...user, 'last-event-id': String(from) });
    const replayed = collect(again, (all) => all.some((e) => e.id > last));
    await uploadOk(ctx.b, 'after.txt', 'y', user);
    const replayedEvents = await replayed;
    // The same events as they went out live, body and time.
    expect(replayedEvents.slice(0, last - from)).toEqual(seenOnA.slice(from));
    expect(replayedEvents.map((e) => e.id)).toEqual([
      ...Array.from({ length: last - from }, (_, i) => from + 1 + i),
      last + 1,
    ]);
  });
});
