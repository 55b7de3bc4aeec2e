// Fault (issue 22): a tool's server process exits in the middle of a call. The slow example's
// `crash` tool (test config, --test-tools) makes its process exit with status 1 while the call is
// in flight. The call, run on A and followed on B, must end `failed` with an error code and a
// reason; the next call to the same server starts a new process and works; the files stored
// before (an upload and a tool's outputs) are intact and nothing half-written is listed.
import { expect, it } from 'vitest';
import {
  type AckedFile,
  expectIntact,
  expectListedWhole,
  expectNoRowWithoutBlob,
  listedFiles,
} from '../../support/fault-checks.js';
import { collectSse, openSse } from '../../support/sse.js';
import { ALICE, settledCall, startCallOk, uploadOk } from '../../support/start-app.js';
import { startTestCluster, type TestCluster, useTestCluster } from '../../support/start-cluster.js';

interface EventJson {
  type: string;
  seq: number;
  code?: string;
  message?: string;
}

interface CallDetail {
  status: string;
  response: {
    forUi?: { files?: { id: string }[] };
    error?: { code?: string; message?: string };
  } | null;
}

const ctx = useTestCluster(() => startTestCluster());

function startCall(base: string, server: string, tool: string, args: Record<string, unknown>) {
  return startCallOk(base, { server, tool, arguments: args }, ALICE);
}

function storageOf(c: TestCluster): Record<string, unknown> {
  return {
    catalog: { driver: 'postgres', url: c.schema.url, schema: c.schema.schema },
    blob: {
      driver: 's3',
      endpoint: c.s3.endpoint,
      bucket: c.s3.bucket,
      region: c.s3.region,
      forcePathStyle: true,
      ...c.s3.credentials,
    },
    // fsck signs nothing, but a PostgreSQL catalog's configuration needs a shared key.
    tokens: { keys: [{ id: 'fsck', secret: 'f'.repeat(64) }] },
  };
}

it('ends the call failed with a clear reason, restarts the server on the next call, loses no file', async () => {
  const csv = 'region,sales\nNorth,120\nSouth,80\n';
  const acked: AckedFile[] = [
    await uploadOk(ctx.a, 'sales.csv', csv, { ...ALICE, 'content-type': 'text/csv' }),
  ];
  const reportId = await startCall(ctx.a, 'report', 'csv_report', { filename: 'sales.csv', title: 'Q3' });
  const report = await settledCall<CallDetail>(ctx.a, reportId, ALICE);
  expect(report.status).toBe('finished');
  // The outputs as My Files lists them right after the call: their sha256 is what must hold.
  const outputIds = new Set((report.response?.forUi?.files ?? []).map((file) => file.id));
  expect(outputIds.size).toBeGreaterThan(0);
  const outputs = (await listedFiles(ctx.a, ALICE)).filter((file) => outputIds.has(file.id));
  expect(outputs).toHaveLength(outputIds.size);
  acked.push(...outputs);

  // A slow call first, so the crash hits a server process that was already running.
  const warm = await startCall(ctx.a, 'slow', 'slow_task', { seconds: 0, steps: 1 });
  expect((await settledCall<CallDetail>(ctx.a, warm, ALICE)).status).toBe('finished');

  const crashId = await startCall(ctx.a, 'slow', 'crash', {});
  const started = performance.now();
  const onB = await collectSse<EventJson>(
    await openSse(ctx.b, `/api/calls/${crashId}/events`, ALICE),
    (e) => e.seq,
  );
  const ms = performance.now() - started;
  const last = onB.at(-1);
  expect(last).toMatchObject({
    type: 'failed',
    code: 'E_TOOL_UNAVAILABLE',
    message: 'MCP server "slow" exited with code 1 during the call',
    retryable: true,
  });
  // The process exit is seen at once, not by the 30 s watchdog.
  expect(ms).toBeLessThan(10_000);
  const crashed = await settledCall<CallDetail>(ctx.b, crashId, ALICE);
  expect(crashed.status).toBe('failed');
  expect(crashed.response?.forUi?.files).toEqual([]);

  // The next call starts the server again and works.
  const next = await startCall(ctx.a, 'slow', 'slow_task', { seconds: 0.1, steps: 2 });
  const after = await settledCall<CallDetail>(ctx.a, next, ALICE);
  expect(after.status).toBe('finished');

  await expectIntact(ctx.b, ALICE, acked);
  const listed = await expectListedWhole(ctx.a, [ALICE]);
  expect(listed.map((file) => file.id).sort()).toEqual(acked.map((file) => file.id).sort());
  await expectNoRowWithoutBlob(storageOf(ctx.cluster));
}, 60_000);
