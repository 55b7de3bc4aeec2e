// Consistency check of the FileStore's two halves, and their repair (`ferry admin fsck`):
//
// | step          | finds                                              | repair                        |
// |---------------|----------------------------------------------------|-------------------------------|
// | checkRows     | ready rows whose blob is gone                      | the row goes (Catalog.delete) |
// | checkBlobs    | blobs under `users/` no row (ready or pending)     | the blob goes                 |
// |               | claims, last written before the grace period       |                               |
// | checkPartials | temp files and multipart uploads of interrupted    | BlobDriver.sweepPartials      |
// |               | puts, older than the grace period                  |                               |
//
// Everything streams: rows in keyset pages, blobs as the driver lists them, a batch at a time, so
// memory stays flat however large the store is; only the first `maxItems` findings of each kind
// are kept as items, the counts are exact. Other instances' work stays safe: an upload's pending
// row exists before its first byte, so its blob is claimed all along, and a blob without a row is
// judged only once it is older than the grace period besides; a delete removes the row before the
// blob, so a row is reported only if a second look, after its blob was found missing, still finds
// it. Expired files and stale pending rows are the FileStore sweep's.
import type { BlobDriver } from '../blob/driver.js';
import type { Catalog } from '../catalog/types.js';
import { claimedBlobKeys, readyRowExists, readyRowsAfter } from './catalog-scan.js';
import { mapLimited } from './map-limited.js';

/** Same as the FileStore's pendingGraceMs default: older leftovers are a crash's, not a live put's. */
export const DEFAULT_FSCK_GRACE_MS = 3_600_000;
/** Every key the FileStore writes starts so (blobKeyFor); anything else under the root is not its. */
const BLOB_KEY_PREFIX = 'users/';

export interface FsckOptions {
  blobs: BlobDriver;
  catalog: Catalog;
  /** Remove what is found (rows without blobs, orphaned blobs, stale partial uploads). @default false */
  repair?: boolean;
  /** Blobs and partial uploads younger than this are left alone. @default 1 hour */
  graceMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
  /** Findings listed per kind; the counts go on past it. @default 100 */
  maxItems?: number;
  /** Rows or keys per catalog query. @default 500 */
  batchSize?: number;
  /** Blob stats in flight at once (HEAD requests on S3). @default 16 */
  concurrency?: number;
}

export interface MissingBlobItem {
  id: string;
  owner: string;
  /** The owner's username; undefined if the user row is gone too. */
  username: string | undefined;
  name: string;
  version: number;
  blobKey: string;
}

export interface OrphanBlobItem {
  key: string;
  size: number;
  modifiedAt: string;
}

export interface PartialUploadItem {
  /** Temp file name, or S3 UploadId. */
  id: string;
  key: string | undefined;
  startedAt: string;
  size: number | undefined;
}

export interface FsckFindings<T> {
  found: number;
  /** Removed by this run (0 without repair). */
  repaired: number;
  /** Still there when the run ended. */
  left: number;
  /** The first `maxItems` found. */
  items: T[];
}

export interface FsckReport {
  /** Nothing is left to repair: none was found, or every finding was repaired. */
  consistent: boolean;
  repair: boolean;
  graceMs: number;
  maxItems: number;
  scanned: { rows: number; blobs: number };
  /** Ready rows whose blob is gone: the file cannot be read. */
  missingBlobs: FsckFindings<MissingBlobItem>;
  /** Blobs no row claims: space nobody can reach. */
  orphanBlobs: FsckFindings<OrphanBlobItem>;
  /** Leftovers of interrupted puts. */
  partialUploads: FsckFindings<PartialUploadItem>;
  /** Blobs without a row but last written within the grace period: left alone (an upload may still be committing). */
  recentBlobs: number;
  /** Steps that could not run (e.g. an S3 store without ListMultipartUploads): their findings are unknown. */
  warnings: string[];
  durationMs: number;
}

interface Run {
  blobs: BlobDriver;
  catalog: Catalog;
  repair: boolean;
  graceMs: number;
  now: () => Date;
  maxItems: number;
  batchSize: number;
  concurrency: number;
  report: FsckReport;
}

export async function checkStorage(options: FsckOptions): Promise<FsckReport> {
  const started = Date.now();
  const maxItems = options.maxItems ?? 100;
  const report: FsckReport = {
    consistent: false,
    repair: options.repair ?? false,
    graceMs: options.graceMs ?? DEFAULT_FSCK_GRACE_MS,
    maxItems,
    scanned: { rows: 0, blobs: 0 },
    missingBlobs: emptyFindings(),
    orphanBlobs: emptyFindings(),
    partialUploads: emptyFindings(),
    recentBlobs: 0,
    warnings: [],
    durationMs: 0,
  };
  const run: Run = {
    blobs: options.blobs,
    catalog: options.catalog,
    repair: report.repair,
    graceMs: report.graceMs,
    now: options.now ?? (() => new Date()),
    maxItems,
    batchSize: options.batchSize ?? 500,
    concurrency: options.concurrency ?? 16,
    report,
  };
  // Rows first: repairing them removes no blob another step would then miss.
  await checkRows(run);
  await checkBlobs(run);
  await checkPartials(run);
  for (const findings of [report.missingBlobs, report.orphanBlobs]) {
    findings.left = findings.found - findings.repaired;
  }
  report.consistent = [report.missingBlobs, report.orphanBlobs, report.partialUploads].every(
    (findings) => findings.left === 0,
  );
  report.durationMs = Date.now() - started;
  return report;
}

async function checkRows(run: Run): Promise<void> {
  const { blobs, catalog, report } = run;
  const findings = report.missingBlobs;
  const usernames = new Map<string, string | undefined>();
  for (let afterId = ''; ; ) {
    const rows = await readyRowsAfter(catalog, afterId, run.batchSize);
    if (rows.length === 0) return;
    afterId = rows[rows.length - 1]?.id ?? afterId;
    report.scanned.rows += rows.length;
    const present = await mapLimited(
      rows,
      run.concurrency,
      async (row) => (await blobs.stat(row.blobKey)) !== null,
    );
    for (const [index, row] of rows.entries()) {
      if (present[index]) continue;
      // Deleted since it was read (a delete removes the row, then the blob): not a finding.
      if (!(await readyRowExists(catalog, row.id))) continue;
      findings.found++;
      if (findings.items.length < run.maxItems) {
        if (!usernames.has(row.owner)) usernames.set(row.owner, (await catalog.getUser(row.owner))?.username);
        findings.items.push({ ...row, username: usernames.get(row.owner) });
      }
      if (!run.repair) continue;
      try {
        // As FileStore.delete removes a file: the row, then whatever blob keys it named.
        for (const key of await catalog.delete(row.owner, row.id)) await blobs.delete(key);
        findings.repaired++;
      } catch (error) {
        report.warnings.push(`could not remove row ${row.id} (${row.name}): ${messageOf(error)}`);
      }
    }
  }
}

async function checkBlobs(run: Run): Promise<void> {
  const { blobs, catalog, report } = run;
  if (!blobs.listEntries) {
    report.warnings.push(`[${blobs.name}] cannot list blobs: orphaned blobs were not looked for`);
    return;
  }
  const findings = report.orphanBlobs;
  const cutoff = run.now().getTime() - run.graceMs;
  // A catalog without a single file row next to old blobs is far likelier the wrong database or
  // schema than a store whose every file lost its row: report, but delete nothing.
  const stats = await catalog.stats();
  const refuseDeletes = run.repair && stats.files + stats.pending === 0;
  let batch: { key: string; size: number; modifiedAt: Date }[] = [];
  const judge = async () => {
    const claimed = await claimedBlobKeys(
      catalog,
      batch.map((entry) => entry.key),
    );
    for (const entry of batch) {
      if (claimed.has(entry.key)) continue;
      if (entry.modifiedAt.getTime() > cutoff) {
        report.recentBlobs++;
        continue;
      }
      findings.found++;
      if (findings.items.length < run.maxItems) {
        findings.items.push({ key: entry.key, size: entry.size, modifiedAt: entry.modifiedAt.toISOString() });
      }
      if (!run.repair || refuseDeletes) continue;
      try {
        await blobs.delete(entry.key);
        findings.repaired++;
      } catch (error) {
        report.warnings.push(`could not delete blob ${entry.key}: ${messageOf(error)}`);
      }
    }
    batch = [];
  };
  for await (const entry of blobs.listEntries(BLOB_KEY_PREFIX)) {
    report.scanned.blobs++;
    batch.push(entry);
    if (batch.length >= run.batchSize) await judge();
  }
  await judge();
  if (refuseDeletes && findings.found > 0) {
    report.warnings.push(
      `the catalog has no file rows at all: ${findings.found} blob(s) not deleted (wrong database or schema?)`,
    );
  }
}

async function checkPartials(run: Run): Promise<void> {
  const { blobs, report } = run;
  const findings = report.partialUploads;
  const listPartials = blobs.listPartials?.bind(blobs);
  if (!listPartials) {
    report.warnings.push(`[${blobs.name}] cannot list partial uploads: they were not looked for`);
    return;
  }
  const count = async (keep: boolean) => {
    let found = 0;
    for await (const partial of listPartials(run.graceMs)) {
      found++;
      if (keep && findings.items.length < run.maxItems) {
        findings.items.push({
          id: partial.id,
          key: partial.key,
          startedAt: partial.startedAt.toISOString(),
          size: partial.size,
        });
      }
    }
    return found;
  };
  try {
    findings.found = await count(true);
  } catch (error) {
    report.warnings.push(`[${blobs.name}] could not list partial uploads: ${messageOf(error)}`);
    return;
  }
  findings.left = findings.found;
  if (!run.repair || findings.found === 0 || !blobs.sweepPartials) return;
  try {
    findings.repaired = await blobs.sweepPartials(run.graceMs);
    // What is left is what a second look finds: the sweep's count may include one that aged past
    // the grace period meanwhile, or miss one another instance removed first.
    findings.left = await count(false);
  } catch (error) {
    report.warnings.push(`[${blobs.name}] could not remove partial uploads: ${messageOf(error)}`);
  }
}

function emptyFindings<T>(): FsckFindings<T> {
  return { found: 0, repaired: 0, left: 0, items: [] };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
