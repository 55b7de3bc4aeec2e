// Fault (issue 22): Redis dies (SIGKILL) and comes back empty on the same port, as a cache
// without persistence restarted by its supervisor. Two instances share a redis-server of the
// test's own (never the machine's). Before: a call started on A is followed on B to its end.
// While Redis is down, /readyz answers 503 on both, naming the redis check. After the restart,
// within a bound: /readyz is 200 again, a new call on A is followed on B, a call running on A is
// cancelled through B, the user's event stream on B shows an upload on A; files are intact.
import type { IncomingMessage } from 'node:http';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AckedFile,
  expectIntact,
  expectListedWhole,
  expectNoRowWithoutBlob,
} from '../../support/fault-checks.js';
import { startFaultCluster } from '../../support/fault-cluster.js';
import { type KillableRedis, startKillableRedis } from '../../support/killable-services.js';
import { collectSse, openSse } from '../../support/sse.js';
import { ALICE, http, settledCall, uploadOk } from '../../support/start-app.js';
import { useTestCluster } from '../../support/start-cluster.js';

/** Redis back, every shared part working again within this. */
const RECOVERY_BOUND_MS = 15_000;

interface CallEventJson {
  type: string;
  seq: number;
}

interface UserEventJson {
  id: number;
  type: string;
  reason?: string;
}

let redis: KillableRedis;
let s3: S3TestServer;

// Registered before the cluster's hooks: Redis and s3rver start first and stop after the cluster
// closes.
beforeAll(async () => {
  redis = await startKillableRedis();
  s3 = await startS3Server();
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  await redis?.stop();
});

const ctx = useTestCluster(() => startFaultCluster({ s3, redisUrl: redis.url }));

async function startSlow(base: string, seconds: number, steps: number): Promise<string> {
  const started = await http(base, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds, steps } }),
  });
  expect(started.status, started.text).toBe(202);
  return started.json<{ callId: string }>().callId;
}

/** A stream that never shows what is awaited is dropped after this, and the test fails. */
const TRY_MS = 5_000;

/** openSse, dropped after TRY_MS whatever it is doing (collectSse then returns what it got). */
async function openBounded(base: string, path: string): Promise<IncomingMessage> {
  const response = await openSse(base, path, ALICE);
  const timer = setTimeout(() => response.destroy(), TRY_MS);
  response.once('close', () => clearTimeout(timer));
  return response;
}

async function followed(base: string, callId: string): Promise<CallEventJson[]> {
  return collectSse<CallEventJson>(await openBounded(base, `/api/calls/${callId}/events`), (e) => e.seq);
}

/**
 * Polls GET /readyz on `base` until its status is `status` (nothing to await: readiness is only
 * asked for); returns the body then.
 */
async function readyzBecomes(base: string, status: number): Promise<Record<string, unknown>> {
  const deadline = performance.now() + RECOVERY_BOUND_MS;
  for (;;) {
    const ready = await http(base, '/readyz');
    if (ready.status === status) return ready.json();
    if (performance.now() > deadline)
      throw new Error(`/readyz on ${base} still ${ready.status}: ${ready.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('serves calls, cancels and the event stream again after Redis restarts, and says so in /readyz meanwhile', async () => {
  const acked: AckedFile[] = [await uploadOk(ctx.a, 'before.csv', 'region,sales\nNorth,1\n', ALICE)];
  const first = await startSlow(ctx.a, 0.2, 2);
  expect((await followed(ctx.b, first)).at(-1)?.type).toBe('finished');

  await redis.kill();
  for (const base of [ctx.a, ctx.b]) {
    const down = await readyzBecomes(base, 503);
    expect(down).toMatchObject({ checks: { redis: { ok: false } } });
  }

  await redis.restart();
  const restarted = performance.now();
  for (const base of [ctx.a, ctx.b]) await readyzBecomes(base, 200);

  // A new call on A, followed on B to its end, at the first try.
  const followedAfter = await (async () => {
    const callId = await startSlow(ctx.a, 0.2, 2);
    const events = await followed(ctx.b, callId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.type).toBe('started');
    expect(events.filter((e) => e.type === 'progress')).toHaveLength(2);
    return events;
  })();
  expect(followedAfter.at(-1)?.type).toBe('finished');

  // A call running on A cancelled through B.
  const cancelled = await (async () => {
    const callId = await startSlow(ctx.a, 20, 40);
    const events = await collectSse<CallEventJson>(
      await openBounded(ctx.b, `/api/calls/${callId}/events`),
      (e) => e.seq,
      (event) => {
        if (event.type === 'started') {
          void http(ctx.b, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE }).then((answer) =>
            expect(answer.status, answer.text).toBe(202),
          );
        }
        return false;
      },
    );
    expect(events.at(-1)?.type).toBe('cancelled');
    return settledCall<{ status: string }>(ctx.a, callId, ALICE);
  })();
  expect(cancelled.status).toBe('cancelled');

  // The user's event stream on B sees an upload on A.
  const seen = await (async () => {
    const stream = await openBounded(ctx.b, '/api/events');
    expect(stream.statusCode).toBe(200);
    const events = collectSse<UserEventJson>(
      stream,
      (e) => e.id,
      (event) => event.type === 'files_changed' && event.reason === 'uploaded',
    );
    acked.push(await uploadOk(ctx.a, `after-${acked.length}.csv`, 'region,sales\nSouth,2\n', ALICE));
    return events;
  })();
  expect(seen.at(-1)).toMatchObject({ type: 'files_changed', reason: 'uploaded' });
  expect(performance.now() - restarted).toBeLessThan(RECOVERY_BOUND_MS);

  await expectIntact(ctx.b, ALICE, acked);
  await expectListedWhole(ctx.a, [ALICE]);
  await expectNoRowWithoutBlob(ctx.cluster.storage);
}, 60_000);
