// A call whose instance died, as the app serves it (issue 22, the reaper): a third instance,
// "ghost", runs a call in the cluster's Redis (its record, events and running slot, written
// through a Redis call store as a Ferry instance writes them) and stops beating: its liveness key
// expires. Every app instance's reaper (heartbeat 200 ms in the cluster) ends the call as failed:
// a follower on B gets the `failed` event with the next seq, and GET on B says failed. Not a real
// process killed (that needs `ferry start` in a child, with its own config): the ghost stands for
// one.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisCallStore } from '../../src/calls/redis-call-store.js';
import { instanceKeys } from '../../src/shared/redis-connection.js';
import { type GhostInstance, openGhostInstance } from '../support/ghost-instance.js';
import { collectSse, openSse } from '../support/sse.js';
import { ALICE, http, settledCall } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

const ctx = useTestCluster(() =>
  startTestCluster({
    app: { auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' } },
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

interface EventJson {
  type: string;
  seq: number;
  callId: string;
  code?: string;
  message?: string;
  retryable?: boolean;
}

function openEvents(base: string, callId: string): Promise<IncomingMessage> {
  return openSse(base, `/api/calls/${callId}/events`, ALICE);
}

function readEvents(response: IncomingMessage): Promise<EventJson[]> {
  return collectSse(response, (event) => event.seq);
}

it("ends a dead instance's call as failed: followed on B, read on B, its slot free", async () => {
  const { prefix, client } = ctx.cluster.redis;
  // Alice's owner id as the app records it: from a call of hers on B.
  const own = await http(ctx.b, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0, steps: 1 } }),
  });
  expect(own.status, own.text).toBe(202);
  const ownId = own.json<{ callId: string }>().callId;
  await settledCall(ctx.b, ownId, ALICE);
  const owner = await client.hget(`${prefix}call:{${ownId}}`, 'owner');
  expect(owner).toBeTruthy();

  // The ghost's last heartbeat: its key is gone in 400 ms, and the call is still running.
  const keys = instanceKeys(prefix);
  await client.multi().set(keys.alive('ghost'), '{}', 'PX', 400).sadd(keys.instances, 'ghost').exec();
  const call = await ghost.create(
    {
      owner: owner as string,
      username: 'alice',
      server: 'slow',
      tool: 'slow_task',
      startedAt: new Date(),
      instance: 'ghost',
    },
    8,
  );
  const at = new Date().toISOString();
  expect(
    await ghost.append(call.callId, 'ghost', {
      type: 'started',
      server: 'slow',
      tool: 'slow_task',
      callId: call.callId,
      seq: 1,
      at,
    }),
  ).toBe(true);

  const events = await readEvents(await openEvents(ctx.b, call.callId));
  expect(events.map((event) => [event.seq, event.type])).toEqual([
    [1, 'started'],
    [2, 'failed'],
  ]);
  expect(events[1]).toMatchObject({
    code: 'E_INTERNAL',
    message: 'The Ferry instance running this call stopped (no heartbeat for 0.6 s)',
    retryable: true,
  });
  const settled = await settledCall<{ status: string }>(ctx.b, call.callId, ALICE);
  expect(settled.status).toBe('failed');
  expect(await client.sismember(`${prefix}user:${owner}:running`, call.callId)).toBe(0);
  expect(await client.sismember(keys.instances, 'ghost')).toBe(0);
  // A ghost that comes back cannot write to the call any more.
  expect(
    await ghost.append(call.callId, 'ghost', {
      type: 'progress',
      progress: 1,
      callId: call.callId,
      seq: 3,
      at,
    }),
  ).toBe(false);
});
