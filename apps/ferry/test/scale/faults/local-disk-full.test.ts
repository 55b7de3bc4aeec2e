// Fault (issue 22): the disk under the local blob driver fills up. Embedded Ferry (local disk +
// SQLite) keeps its blobs and its SQLite catalog on one 8 MiB tmpfs; uploads of 3 MiB go in until
// one meets ENOSPC. That upload must get a clear answer (status and error
// code, within a bound); nothing half-written may be listed and no temp file left behind; the
// files stored before stay intact; once a file is deleted, a new upload fits again.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AckedFile,
  expectIntact,
  expectListedWhole,
  expectNoRowWithoutBlob,
  sha256Of,
} from '../../support/fault-checks.js';
import {
  ALICE,
  type FileJson,
  http,
  PROXY_AUTH,
  startTestApp,
  type TestApp,
  upload,
} from '../../support/start-app.js';

const MIB = 1024 * 1024;
const FILE_BYTES = 3 * MIB;
/** An 8 MiB disk holds two such files, not three. */
const MAX_UPLOADS = 6;

let mountPoint: string;
let mounted = false;
let t: TestApp;

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'ferry-fault-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
  mounted = true;
  t = await startTestApp({
    app: { auth: PROXY_AUTH },
    storage: storageOnSmallDisk(),
    servers: {},
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
});

/** Blobs and catalog both on the small disk. */
function storageOnSmallDisk() {
  return {
    blob: { driver: 'local', root: join(mountPoint, 'blobs') },
    catalog: { driver: 'sqlite', filename: join(mountPoint, 'catalog.db') },
  };
}

/** Every file under the blob root's temp directory: a put's partial bytes until it commits. */
async function tempFiles(): Promise<string[]> {
  return readdir(join(mountPoint, 'blobs', '.tmp'), { recursive: true }).catch(() => []);
}

it('refuses the upload that meets a full disk clearly, leaves nothing half-written, and fits again after a delete', async () => {
  const acked: AckedFile[] = [];
  let refused: { status: number; text: string; ms: number } | undefined;
  for (let index = 0; index < MAX_UPLOADS && !refused; index++) {
    const bytes = randomBytes(FILE_BYTES);
    const started = performance.now();
    const answer = await upload(t.url, `part-${index}.bin`, bytes, ALICE);
    if (answer.status === 201) {
      const file = answer.json<{ files: FileJson[] }>().files[0] as FileJson;
      expect(file.sha256).toBe(sha256Of(bytes));
      acked.push(file);
    } else {
      refused = { status: answer.status, text: answer.text, ms: performance.now() - started };
    }
  }
  expect(acked.length, 'files stored before the disk filled').toBeGreaterThanOrEqual(1);
  expect(refused, 'an upload met the full disk').toBeDefined();
  expect(refused?.ms).toBeLessThan(10_000);
  // A full disk is the server's condition, never the client's fault (it was a 400 "The upload
  // broke off or is malformed" before the route stopped blaming the body for the store's error).
  // 507 E_STORAGE_FULL: the uploader learns the store is full (the ENOSPC itself is in the log).
  expect(refused?.status, refused?.text).toBe(507);
  expect(JSON.parse(refused?.text ?? '{}')).toMatchObject({
    meta_data: { error_code: 'E_STORAGE_FULL', retryable: false },
  });

  expect(await tempFiles(), 'partial bytes left in the temp directory').toEqual([]);
  const listed = await expectListedWhole(t.url, [ALICE]);
  expect(listed.map((file) => file.id).sort()).toEqual(acked.map((file) => file.id).sort());
  await expectIntact(t.url, ALICE, acked);
  const storage = { dataDir: join(t.dir, 'data'), ...storageOnSmallDisk() };
  await expectNoRowWithoutBlob(storage);

  // Room again after a delete: the next upload fits and reads back.
  const gone = acked.shift() as AckedFile;
  const deleted = await http(t.url, `/api/files/${gone.id}`, { method: 'DELETE', headers: ALICE });
  expect(deleted.status, deleted.text).toBeLessThan(300);
  const bytes = randomBytes(FILE_BYTES);
  const again = await upload(t.url, 'after-delete.bin', bytes, ALICE);
  expect(again.status, again.text).toBe(201);
  const stored = again.json<{ files: FileJson[] }>().files[0] as FileJson;
  expect(stored.sha256).toBe(sha256Of(bytes));
  acked.push(stored);
  await expectIntact(t.url, ALICE, acked);
  const report = await expectNoRowWithoutBlob(storage);
  expect(report.orphanBlobs.found).toBe(0);
  expect(await tempFiles()).toEqual([]);
}, 60_000);
