// Answers to a server's questions across instances (issue 22, step 6): the question of a call
// running on B waits in B's memory, the user's answer may reach A. A sends it to B over the bus;
// B's host checks it and its verdict comes back as A's status (a file outside `accept` is 415 on A
// as on B). A call whose instance is gone is reaped the moment a cancel or an answer finds it gone,
// not at the next reaper round (the heartbeat here is 30 s, so only that path can end it).
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisCallStore } from '../../src/calls/redis-call-store.js';
import { instanceKeys } from '../../src/shared/redis-connection.js';
import { type GhostInstance, openGhostInstance } from '../support/ghost-instance.js';
import { collectSse, openSse } from '../support/sse.js';
import { ALICE, asUser, http, settledCall, uploadOk } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

const BOB = asUser('bob');
const JSON_BODY = { 'content-type': 'application/json' };
const CSV = 'region,sales\nNorth,120\nSouth,80\n';

interface EventJson {
  type: string;
  seq: number;
  callId: string;
  elicitationId?: string;
  code?: string;
  message?: string;
}

const ctx = useTestCluster(() =>
  startTestCluster({
    app: { auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' } },
    heartbeatMs: 30_000,
  }),
);
let ghost: RedisCallStore;
let ghostInstance: GhostInstance;

// Registered after the cluster's hooks: the ghost opens once the cluster runs and closes before it.
beforeAll(async () => {
  ghostInstance = await openGhostInstance(ctx.cluster);
  ghost = ghostInstance.store;
}, 60_000);

afterAll(async () => {
  await ghostInstance?.close();
});

/** Starts review_document on `base` and reads `from`'s event stream of it until the question. */
async function questionOn(base: string, from: string): Promise<EventJson> {
  const started = await http(base, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, ...JSON_BODY },
    body: JSON.stringify({ server: 'xfile', tool: 'review_document', arguments: { purpose: 'audit' } }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  const events = await collectSse<EventJson>(
    await openSse(from, `/api/calls/${callId}/events`, ALICE),
    (event) => event.seq,
    (event) => event.type === 'elicitation',
  );
  const question = events.at(-1);
  if (question?.type !== 'elicitation')
    throw new Error(`the call ended without asking: ${JSON.stringify(events)}`);
  return question;
}

const answer = (base: string, question: EventJson, body: unknown, headers = ALICE) =>
  http(base, `/api/calls/${question.callId}/elicitations/${question.elicitationId}`, {
    method: 'POST',
    headers: { ...headers, ...JSON_BODY },
    body: JSON.stringify(body),
  });

describe('questions of a call on B answered through A', () => {
  it("reach B's tool with the picked file's bytes; B's verdicts are A's statuses", async () => {
    const csv = await uploadOk(ctx.a, 'sales.csv', CSV, ALICE);
    const png = await uploadOk(
      ctx.a,
      'logo.png',
      Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
      ALICE,
    );
    const question = await questionOn(ctx.b, ctx.a);

    const wrongType = await answer(ctx.a, question, { action: 'accept', files: { document: png.id } });
    expect(wrongType.status, wrongType.text).toBe(415);
    expect(wrongType.json()).toMatchObject({ meta_data: { error_code: 'E_FILE_TYPE_REJECTED' } });
    // Bob cannot answer Alice's question, from either instance.
    expect((await answer(ctx.a, question, { action: 'decline' }, BOB)).status).toBe(404);
    expect((await answer(ctx.a, question, { action: 'accept', content: { urgent: 'yes' } })).status).toBe(
      400,
    );

    const ok = await answer(ctx.a, question, {
      action: 'accept',
      content: { note: 'from A', urgent: true },
      files: { document: csv.id },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json()).toEqual({ answered: true });
    // Answered once: the second try finds no open question, through either instance.
    expect((await answer(ctx.a, question, { action: 'decline' })).status).toBe(404);
    expect((await answer(ctx.b, question, { action: 'decline' })).status).toBe(404);

    const done = await settledCall<{
      status: string;
      response: { forModel: { results: Record<string, unknown> } };
    }>(ctx.a, question.callId, ALICE);
    expect(done.status).toBe('finished');
    expect(done.response.forModel.results).toMatchObject({
      action: 'accept',
      byte_size: CSV.length,
      sha256: createHash('sha256').update(CSV).digest('hex'),
      note: 'from A',
      urgent: true,
    });
  });

  it('a decline through B of a call on A goes through', async () => {
    const question = await questionOn(ctx.a, ctx.b);
    expect((await answer(ctx.b, question, { action: 'decline' })).status).toBe(200);
    const done = await settledCall<{ status: string; response: { forModel: { results: unknown } } }>(
      ctx.b,
      question.callId,
      ALICE,
    );
    expect(done.response.forModel.results).toEqual({ action: 'decline' });
  });
});

describe('a call whose instance is gone', () => {
  /** A running call of Alice's on "ghost", an instance in the set with no liveness key. */
  async function ghostCall(name: string) {
    const { prefix, client } = ctx.cluster.redis;
    const own = await http(ctx.a, '/api/calls', {
      method: 'POST',
      headers: { ...ALICE, ...JSON_BODY },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0, steps: 1 } }),
    });
    expect(own.status, own.text).toBe(202);
    const ownId = own.json<{ callId: string }>().callId;
    await settledCall(ctx.a, ownId, ALICE);
    const owner = (await client.hget(`${prefix}call:{${ownId}}`, 'owner')) as string;
    await client.sadd(instanceKeys(prefix).instances, name);
    const call = await ghost.create(
      {
        owner,
        username: 'alice',
        server: 'xfile',
        tool: 'review_document',
        startedAt: new Date(),
        instance: name,
      },
      8,
    );
    const at = new Date().toISOString();
    const started = {
      type: 'started' as const,
      server: 'xfile',
      tool: 'review_document',
      callId: call.callId,
      at,
    };
    expect(await ghost.append(call.callId, name, { ...started, seq: 1 })).toBe(true);
    return call.callId;
  }

  it('is reaped when a cancel finds its instance gone: the cancel answers with the failed call', async () => {
    const callId = await ghostCall('ghost-cancel');
    const cancel = await http(ctx.a, `/api/calls/${callId}`, { method: 'DELETE', headers: ALICE });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.json()).toMatchObject({ callId, status: 'failed' });
    const events = await collectSse<EventJson>(
      await openSse(ctx.b, `/api/calls/${callId}/events`, ALICE),
      (e) => e.seq,
    );
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'started'],
      [2, 'failed'],
    ]);
    expect(events[1]?.message).toMatch(/^The Ferry instance running this call stopped/);
  });

  it('is reaped when an answer finds its instance gone: 404, no open question', async () => {
    const callId = await ghostCall('ghost-answer');
    const response = await answer(
      ctx.b,
      { type: 'elicitation', seq: 2, callId, elicitationId: randomUUID() },
      {
        action: 'decline',
      },
    );
    expect(response.status, response.text).toBe(404);
    expect((await http(ctx.b, `/api/calls/${callId}`, { headers: ALICE })).json()).toMatchObject({
      status: 'failed',
    });
  });
});
