// Deleting a user with two instances (issue 22, step 10): what each instance holds of the user in
// memory (a running call, its workspace, the username -> owner cache) is dropped by that instance.
// Alice's call runs on B and B has cached her owner id; she is deleted through A. Before, B's call
// ran on, and B went on storing her uploads under the deleted owner id while A saw a new, empty
// user.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { userEventKeys } from '../../src/events/redis-user-events.js';
import { createWorkspaceJanitor } from '../../src/workspaces/workspace-janitor.js';
import { collectSse, openSse } from '../support/sse.js';
import { ALICE, http, settledCall, uploadOk } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

let workspacesOfB: string;

const ctx = useTestCluster(() =>
  startTestCluster({
    app: { auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' } },
    // As `ferry start` has it: a janitor that removes a user's workspace and stops their servers.
    deps: ({ index, host, dir }) => {
      const root = join(dir, 'workspaces');
      if (index === 1) workspacesOfB = root;
      return {
        workspaces: createWorkspaceJanitor({
          workspacesRoot: root,
          closeUser: (username) => host.pool.closeUser(username),
          idleMs: 3_600_000,
        }),
      };
    },
  }),
);

const listed = async (base: string) =>
  (await http(base, '/api/files', { headers: ALICE })).json<{ total: number; items: { id: string }[] }>();

it("every instance drops its part: B's call cancelled, B's workspace gone, B forgets the owner id", async () => {
  const { prefix, client } = ctx.cluster.redis;
  await uploadOk(ctx.a, 'before.txt', 'before deletion', ALICE);
  expect((await listed(ctx.b)).total).toBe(1); // B has her owner id cached now
  const started = await http(ctx.b, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 30, steps: 30 } }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  const oldOwner = (await client.hget(`${prefix}call:{${callId}}`, 'owner')) as string;
  // Running: the tool has reported progress from B, so its workspace there exists.
  await collectSse<{ type: string; seq: number }>(
    await openSse(ctx.b, `/api/calls/${callId}/events`, ALICE),
    (event) => event.seq,
    (event) => event.type === 'progress',
  );
  expect(existsSync(join(workspacesOfB, 'alice'))).toBe(true);
  expect(oldOwner).toBeTruthy();
  expect(await client.exists(userEventKeys(prefix, oldOwner).stream)).toBe(1);

  const deleted = await http(ctx.a, '/api/users/alice', { method: 'DELETE', headers: ALICE });
  expect(deleted.status, deleted.text).toBe(200);
  expect(deleted.json()).toEqual({
    username: 'alice',
    cancelledCalls: 1,
    cancelledChatTurns: 0,
    deletedFiles: 1,
    deletedConversations: 0,
    workspaceRemoved: true,
  });
  // The call ended on B before the answer, B's workspace of hers is gone, her old events too.
  expect(existsSync(join(workspacesOfB, 'alice'))).toBe(false);
  expect(await client.hget(`${prefix}call:{${callId}}`, 'status')).toBe('cancelled');
  expect(await client.exists(userEventKeys(prefix, oldOwner).stream)).toBe(0);

  // Signing in again through B is the same new, empty user A sees.
  expect((await listed(ctx.b)).total).toBe(0);
  const after = await uploadOk(ctx.b, 'after.txt', 'after deletion', ALICE);
  expect((await listed(ctx.a)).items.map((item) => item.id)).toEqual([after.id]);
  expect((await listed(ctx.b)).items.map((item) => item.id)).toEqual([after.id]);
  const again = await http(ctx.a, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0, steps: 1 } }),
  });
  expect(again.status, again.text).toBe(202);
  const newCall = again.json<{ callId: string }>().callId;
  expect((await settledCall<{ status: string }>(ctx.b, newCall, ALICE)).status).toBe('finished');
  expect(await client.hget(`${prefix}call:{${newCall}}`, 'owner')).not.toBe(oldOwner);
});
