// Fault (issue 22): a whole instance dies (SIGKILL) while it runs a tool call. Instance A runs in
// this process; instance B is a real `ferry start` in a child process over the same PostgreSQL
// schema, s3rver bucket, token key and Redis prefix (heartbeat 200 ms: gone after 600 ms). A slow
// call runs on B and is followed on A, on its call stream and on the user's stream; once it has
// reported progress, B gets SIGKILL. A's reaper must end the call as failed with a clear reason
// on both streams within the liveness TTL and a few heartbeats; B's MCP server processes must not
// outlive it; the file uploaded through B stays intact; B started again serves. Killed twice:
// first with the sandbox (auto: bubblewrap on this machine), then, restarted with FERRY_SANDBOX=off,
// with its MCP server as a plain child process. (The user's stream part fails: see the end.)
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntilGone } from '@ferry/test-helpers/processes';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AckedFile,
  expectIntact,
  expectListedWhole,
  expectNoRowWithoutBlob,
} from '../../support/fault-checks.js';
import { startFaultCluster } from '../../support/fault-cluster.js';
import { commandOf, descendantsOf, type FerryChild, startFerryChild } from '../../support/ferry-child.js';
import { collectSse, openSse } from '../../support/sse.js';
import { ALICE, http, PROXY_SECRET, REPO_ROOT, settledCall, uploadOk } from '../../support/start-app.js';
import { useTestCluster } from '../../support/start-cluster.js';

const HEARTBEAT_MS = 200;
/** The reaper ends a dead instance's call within the TTL (3 heartbeats) and a sweep or two more. */
const REAPED_WITHIN_MS = 10_000;
const SYSTEM_REDIS = process.env.FERRY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface CallEventJson {
  type: string;
  seq: number;
  code?: string;
  message?: string;
  retryable?: boolean;
}

interface UserEventJson {
  id: number;
  type: string;
  event?: CallEventJson & { callId: string };
}

let s3: S3TestServer;
let dir: string;
let b: FerryChild | undefined;
/** What the first test saw of the reaped call on A's user stream, and the failure on its call stream. */
let userCallEvents: UserEventJson[] = [];
let reapedFailure: CallEventJson | undefined;

// Registered before the cluster's hooks: s3rver starts first, and it and B's directory go after
// the cluster closes.
beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ctx = useTestCluster(() => startFaultCluster({ s3, redisUrl: SYSTEM_REDIS, count: 1 }));

// Registered after the cluster's hooks: B's directory is made once the cluster runs, and B is
// killed before the cluster closes.
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-fault-instance-'));
}, 60_000);

afterAll(async () => {
  await b?.kill();
});

/** B, as its supervisor starts it: `sandbox` is FERRY_SANDBOX (default: auto, bubblewrap here). */
function startB(sandbox?: 'off'): Promise<FerryChild> {
  return startFerryChild({
    dir,
    config: {
      auth: { mode: 'proxy', proxySecret: PROXY_SECRET },
      redis: { url: ctx.cluster.redis?.url, prefix: ctx.cluster.redis?.prefix, heartbeatMs: HEARTBEAT_MS },
      storage: ctx.cluster.storage,
      servers: {
        slow: {
          transport: 'stdio',
          command: process.execPath,
          args: ['--max-semi-space-size=1', 'examples/servers/dist/slow.js', '--test-tools'],
          cwd: REPO_ROOT,
          fileMode: 'path',
        },
      },
    },
    env: { FERRY_LOG_LEVEL: 'warn', ...(sandbox ? { FERRY_SANDBOX: sandbox } : {}) },
  });
}

/** A stream dropped after `ms` whatever it is doing, so a missing event fails instead of hanging. */
async function openBounded(base: string, path: string, ms: number): Promise<IncomingMessage> {
  const response = await openSse(base, path, ALICE);
  expect(response.statusCode).toBe(200);
  const timer = setTimeout(() => response.destroy(), ms);
  response.once('close', () => clearTimeout(timer));
  return response;
}

interface KilledCall {
  callId: string;
  /** The call's events as A served them, up to the reaper's `failed`. */
  events: CallEventJson[];
  /** B's processes (its MCP server, the sandbox around it) when it was killed. */
  processes: { pid: number; command: string }[];
  reapedInMs: number;
}

/**
 * Starts a slow call on `instance`, follows it on A and SIGKILLs the instance once the call has
 * reported progress (its server process runs then); resolves once A's stream has ended the call.
 */
async function killMidCall(instance: FerryChild): Promise<KilledCall> {
  const started = await http(instance.url, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 60, steps: 120 } }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  let processes: KilledCall['processes'] = [];
  let killedAt = 0;
  let killing: Promise<void> | undefined;
  const events = await collectSse<CallEventJson>(
    await openBounded(ctx.a, `/api/calls/${callId}/events`, 30_000),
    (e) => e.seq,
    (event) => {
      if (event.type === 'progress' && !killing) {
        processes = descendantsOf(instance.pid).map((pid) => ({ pid, command: commandOf(pid) }));
        killedAt = performance.now();
        killing = instance.kill();
      }
      return event.type === 'failed';
    },
  );
  await killing;
  expect(killedAt, 'the instance was killed mid-call').toBeGreaterThan(0);
  return { callId, events, processes, reapedInMs: performance.now() - killedAt };
}

/** The reaper's failure, at once after the call's own events, within the bound. */
function expectReaped(killed: KilledCall): void {
  expect(killed.processes.map((p) => p.command).join('\n'), 'the tool server process').toMatch(/slow\.js/);
  const last = killed.events.at(-1);
  expect(last).toMatchObject({ type: 'failed', code: 'E_INTERNAL', retryable: true });
  expect(last?.message).toMatch(
    /^The Ferry instance running this call stopped \(no heartbeat for [\d.]+ s\)$/,
  );
  expect(killed.events.map((e) => e.seq)).toEqual(killed.events.map((_, i) => i + 1));
  expect(killed.reapedInMs).toBeLessThan(REAPED_WITHIN_MS);
}

/** No process of the killed instance outlives it (polled: they are not this process's children). */
async function expectNoSurvivors(killed: KilledCall): Promise<void> {
  const survivors: string[] = [];
  for (const { pid, command } of killed.processes) {
    await waitUntilGone(pid, 5_000).catch(() => survivors.push(`${pid} ${command.slice(0, 200)}`));
  }
  expect(survivors, 'processes of the killed instance still running').toEqual([]);
}

it("ends a killed instance's call as failed on the other's streams, leaves no server process, and serves after its restart", async () => {
  b = await startB();
  const acked: AckedFile[] = [await uploadOk(b.url, 'from-b.csv', 'region,sales\nNorth,1\n', ALICE)];

  const userResponse = await openBounded(ctx.a, '/api/events', 30_000);
  const userStream = collectSse<UserEventJson>(
    userResponse,
    (e) => e.id,
    (event) => event.type === 'call' && event.event?.type === 'failed',
  );
  const killed = await killMidCall(b);
  expectReaped(killed);
  // The user's stream gets a moment more (it is published apart from the call's events); what it
  // showed is judged by the next test.
  const grace = setTimeout(() => userResponse.destroy(), 1_000);
  userCallEvents = (await userStream).filter((e) => e.type === 'call' && e.event?.callId === killed.callId);
  clearTimeout(grace);
  reapedFailure = killed.events.at(-1);
  expect(userCallEvents.map((e) => e.event?.type)).toContain('progress');
  expect((await settledCall<{ status: string }>(ctx.a, killed.callId, ALICE)).status).toBe('failed');
  // Sandboxed (bubblewrap, --die-with-parent): the server and the wrapper around it die with B.
  await expectNoSurvivors(killed);

  // B again, on the same data directory, this time without the sandbox: it serves, and the file
  // uploaded through it is intact.
  b = await startB('off');
  expect((await http(b.url, '/readyz')).status).toBe(200);
  const again = await http(b.url, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0.1, steps: 1 } }),
  });
  expect(again.status, again.text).toBe(202);
  expect(
    (await settledCall<{ status: string }>(ctx.a, again.json<{ callId: string }>().callId, ALICE)).status,
  ).toBe('finished');
  await expectIntact(b.url, ALICE, acked);

  // Unsandboxed, the server is B's plain child: it must still not outlive B (stdin closes).
  const killedAgain = await killMidCall(b);
  expectReaped(killedAgain);
  await expectNoSurvivors(killedAgain);

  await expectIntact(ctx.a, ALICE, acked);
  await expectListedWhole(ctx.a, [ALICE]);
  await expectNoRowWithoutBlob(ctx.cluster.storage);
  // Two starts of a real `ferry start` (tsx compiles on each) take most of it: ~25 s here alone.
}, 90_000);

// A call's events reach the user's stream (GET /api/events) from the instance running it, which
// is the dead one: the reaper that ends the call publishes its `failed` event there, once.
it("shows the reaped call's failed event on the user's stream of another instance", () => {
  expect(reapedFailure?.type).toBe('failed');
  expect(userCallEvents.at(-1)?.event).toMatchObject({
    type: 'failed',
    code: 'E_INTERNAL',
    seq: reapedFailure?.seq,
  });
});
