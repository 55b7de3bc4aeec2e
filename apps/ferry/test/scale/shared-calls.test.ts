// Calls across two instances sharing Redis (issue 22): a call started on A is read, listed and
// followed on B, replayed there by Last-Event-ID, and cancelled through B (the cancel travels to
// A, which runs it); the running limit holds across both.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { collectSse, openSse } from '../support/sse.js';
import { ALICE, http, settledCall } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

interface EventJson {
  type: string;
  seq: number;
  callId: string;
  reason?: string;
}

const ctx = useTestCluster(() =>
  startTestCluster({
    app: {
      auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' },
      calls: { maxRunningPerUser: 2 },
    },
  }),
);

async function startSlow(base: string, seconds: number, steps: number) {
  return http(base, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds, steps } }),
  });
}

function openEvents(
  base: string,
  callId: string,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  return openSse(base, `/api/calls/${callId}/events`, { ...ALICE, ...headers });
}

/** Events until the stream ends, or until `stop` says so (then the connection is dropped). */
function readEvents(response: IncomingMessage, stop?: (event: EventJson) => boolean): Promise<EventJson[]> {
  return collectSse(response, (event) => event.seq, stop);
}

describe('calls shared through Redis', () => {
  it('are followed on B as A runs them, every event once, and replayed there from Last-Event-ID', async () => {
    const started = await startSlow(ctx.a, 0.6, 4);
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();

    const onB = await readEvents(await openEvents(ctx.b, callId));
    const seqs = onB.map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(onB[0]?.type).toBe('started');
    expect(onB.filter((event) => event.type === 'progress').length).toBe(4);
    expect(onB.at(-1)?.type).toBe('finished');

    const replayed = await readEvents(await openEvents(ctx.b, callId, { 'last-event-id': '3' }));
    expect(replayed.map((event) => event.seq)).toEqual(seqs.slice(3));
    expect((await settledCall<{ status: string }>(ctx.b, callId, ALICE)).status).toBe('finished');
    const listed = (await http(ctx.b, '/api/calls', { headers: ALICE })).json<{
      items: { callId: string }[];
    }>();
    expect(listed.items.map((item) => item.callId)).toContain(callId);
  });

  it('cancels through B a call running on A', async () => {
    const started = await startSlow(ctx.a, 20, 40);
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    const stream = await openEvents(ctx.b, callId);
    let cancelled = false;
    const events = await readEvents(stream, (event) => {
      if (event.type === 'progress' && !cancelled) {
        cancelled = true;
        void http(ctx.b, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE }).then((answer) =>
          expect(answer.status).toBe(202),
        );
      }
      return false;
    });
    expect(cancelled).toBe(true);
    expect(events.at(-1)?.type).toBe('cancelled');
    expect((await settledCall<{ status: string }>(ctx.a, callId, ALICE)).status).toBe('cancelled');
  });

  it('holds the running limit across instances', async () => {
    const first = await startSlow(ctx.a, 20, 40);
    const second = await startSlow(ctx.b, 20, 40);
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await startSlow(ctx.b, 0, 1);
    expect(third.status).toBe(429);
    expect(third.json()).toMatchObject({ meta_data: { error_code: 'E_TOO_MANY_CALLS' } });
    for (const [base, started] of [
      [ctx.a, first],
      [ctx.b, second],
    ] as const) {
      const { callId } = started.json<{ callId: string }>();
      expect(
        (
          await http(base === ctx.a ? ctx.b : ctx.a, `/api/calls/${callId}`, {
            method: 'DELETE',
            headers: ALICE,
          })
        ).status,
      ).toBe(202);
      await settledCall(base, callId, ALICE);
    }
  });
});
