// Fault (issue 22): PostgreSQL drops Ferry's connections in the middle of writes (a failover, an
// idle-killer, an operator's pg_terminate_backend). Two instances run uploads, renames and
// deletes at once while the test terminates every backend of this cluster (found by the
// application_name its catalog URL sets) every few milliseconds. Every request must either
// succeed, and then its result holds, or fail with a status and an error code, within a bound.
// Afterwards both instances serve again (their pools reconnect), every acknowledged file reads
// back by sha256, nothing listed is half-written, and fsck finds no row without its blob.
import { randomBytes } from 'node:crypto';
import { terminateBackends } from '@ferry/test-helpers/postgres';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AckedFile,
  expectIntact,
  expectListedWhole,
  expectNoRowWithoutBlob,
  listedFiles,
  sha256Of,
} from '../../support/fault-checks.js';
import { startFaultCluster } from '../../support/fault-cluster.js';
import { ALICE, type FileJson, type HttpResult, http, upload, uploadOk } from '../../support/start-app.js';
import { useTestCluster } from '../../support/start-cluster.js';

const APPLICATION_NAME = `ferry_fault_pg_${randomBytes(4).toString('hex')}`;
/** Operations of each kind, spread over both instances. */
const EACH = 8;
/** The longest any one request may take, killed connections or not. */
const REQUEST_BOUND_MS = 20_000;

let s3: S3TestServer;

// Registered before the cluster's hooks: s3rver starts first and stops after the cluster closes.
beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);

afterAll(async () => {
  await s3?.stop();
});

const ctx = useTestCluster(() => startFaultCluster({ s3, pgApplicationName: APPLICATION_NAME }));

/** Spreads the writes over several kill rounds: operation `index` starts `index` × 25 ms in. */
function staggered(index: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, index * 25));
}

function bounded(request: Promise<HttpResult>, what: string): Promise<HttpResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} got no answer within ${REQUEST_BOUND_MS} ms`)),
      REQUEST_BOUND_MS,
    );
  });
  return Promise.race([request, timeout]).finally(() => clearTimeout(timer));
}

/** A failed request says so with a server status and a code, never a bare 500 or a hang. */
function expectClearFailure(result: HttpResult, what: string): void {
  expect(result.status, `${what}: ${result.text}`).toBeGreaterThanOrEqual(500);
  expect(result.json<{ meta_data?: { error_code?: string } }>().meta_data?.error_code, what).toMatch(
    /^E_[A-Z_]+$/,
  );
}

it('keeps every acknowledged write and serves again after its connections are killed mid-write', async () => {
  // Files to rename and delete, stored before the fault.
  const base: AckedFile[] = [];
  for (let index = 0; index < 2 * EACH; index++) {
    base.push(await uploadOk(index % 2 ? ctx.b : ctx.a, `base-${index}.txt`, `base file ${index}\n`, ALICE));
  }
  const toRename = base.slice(0, EACH);
  const toDelete = base.slice(EACH);

  let killing = true;
  let terminated = 0;
  const killer = (async () => {
    while (killing) {
      terminated += await terminateBackends(APPLICATION_NAME);
      // Nothing to await: the point is to hit whatever query happens to run. Every 40 ms, so
      // that between two rounds some writes get through and others are cut.
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  })();

  const uploads = Array.from({ length: EACH }, async (_, index) => {
    const bytes = randomBytes(64 * 1024 + index);
    await staggered(index);
    const result = await bounded(
      upload(index % 2 ? ctx.a : ctx.b, `new-${index}.bin`, bytes, ALICE),
      `upload ${index}`,
    );
    return { index, bytes, result };
  });
  const renames = toRename.map(async (file, index) => {
    await staggered(index);
    const result = await bounded(
      http(index % 2 ? ctx.b : ctx.a, `/api/files/${file.id}`, {
        method: 'PATCH',
        headers: { ...ALICE, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `renamed-${index}.txt` }),
      }),
      `rename ${file.name}`,
    );
    return { file, index, result };
  });
  const deletes = toDelete.map(async (file, index) => {
    await staggered(index);
    const result = await bounded(
      http(index % 2 ? ctx.a : ctx.b, `/api/files/${file.id}`, { method: 'DELETE', headers: ALICE }),
      `delete ${file.name}`,
    );
    return { file, result };
  });
  let settled: [
    Awaited<(typeof uploads)[number]>[],
    Awaited<(typeof renames)[number]>[],
    Awaited<(typeof deletes)[number]>[],
  ];
  try {
    settled = await Promise.all([Promise.all(uploads), Promise.all(renames), Promise.all(deletes)]);
  } finally {
    killing = false;
    await killer;
  }
  const [uploaded, renamed, deleted] = settled;
  expect(terminated, 'backends terminated during the writes').toBeGreaterThan(0);

  // Every answer is a success or a clear failure.
  const acked: AckedFile[] = [];
  let failures = 0;
  for (const { index, bytes, result } of uploaded) {
    if (result.status === 201) {
      const file = result.json<{ files: FileJson[] }>().files[0] as FileJson;
      expect(file.sha256).toBe(sha256Of(bytes));
      acked.push(file);
    } else {
      failures++;
      expectClearFailure(result, `upload new-${index}.bin`);
    }
  }

  // Both instances serve again: their pools open fresh connections.
  for (const base of [ctx.a, ctx.b]) {
    const ready = await http(base, '/readyz');
    expect(ready.status, ready.text).toBe(200);
    acked.push(
      await uploadOk(base, `after-${base === ctx.a ? 'a' : 'b'}.txt`, `after the fault on ${base}\n`, ALICE),
    );
  }

  const listed = new Map((await listedFiles(ctx.a, ALICE)).map((file) => [file.id, file]));
  for (const { file, index, result } of renamed) {
    const now = listed.get(file.id);
    if (result.status === 200) {
      expect(now?.name, `rename of ${file.name} answered 200`).toBe(`renamed-${index}.txt`);
    } else {
      failures++;
      expectClearFailure(result, `rename ${file.name}`);
      // A failed rename leaves the file under one of the two names; its commit may have landed
      // before the connection died.
      expect([file.name, `renamed-${index}.txt`], `${file.name} after a failed rename`).toContain(now?.name);
    }
    acked.push({ ...file, name: now?.name ?? file.name });
  }
  for (const { file, result } of deleted) {
    if (result.status < 300) {
      expect(listed.has(file.id), `${file.name} deleted with ${result.status}`).toBe(false);
    } else {
      failures++;
      expectClearFailure(result, `delete ${file.name}`);
      // Still there or gone; if it is listed, it must read whole (checked below).
    }
  }

  await expectIntact(ctx.b, ALICE, acked);
  await expectListedWhole(ctx.b, [ALICE]);
  const report = await expectNoRowWithoutBlob(ctx.cluster.storage);
  // Blobs whose row never committed (an upload that failed after its bytes were stored) are
  // allowed: fsck finds them and --repair removes them. Everything failed is counted here.
  expect(report.orphanBlobs.found).toBeLessThanOrEqual(failures);
}, 60_000);
