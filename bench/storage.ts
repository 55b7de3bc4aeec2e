// Storage benchmark: put + get of a 1 GiB file through the FileStore on local disk +
// SQLite, against the floor for the same work measured in the same run: `cp` of the file plus a
// SHA-256 of it with Node's crypto, timed one after the other and added (the floor is their sum,
// not their max: a put that overlaps hashing with writing, as the FileStore's does, can come in
// under it, down to about max(hash, write) plus the get). Each side runs FERRY_BENCH_RUNS times
// (default 3) and the medians are compared.
// Target (issue 21): put+get <= 1.1x floor, RSS growth <= 64 MiB. Prints one JSON document.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { MIB, machineReport, median, round, timed, withRssPeak } from './_measure.js';

const SIZE = Number(process.env.FERRY_BENCH_BYTES ?? 1024 * MIB);
const RUNS = Number(process.env.FERRY_BENCH_RUNS ?? 3);
const READ_CHUNK = Number(process.env.FERRY_BENCH_CHUNK ?? 64 * 1024);
const TARGET = { ratio: 1.1, rss_growth_mib: 64 };
/** Other work on the machine skews every timing here; reported next to them. */
const loadAtStart = loadavg()[0] ?? 0;

const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-storage-'));
try {
  const source = join(dir, 'source.bin');
  await writeSource(source, SIZE);

  const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'ferry') }, env: {} }));
  const owner = await storage.files.ensureUser('bench');
  const runs: {
    floorMs: number;
    cpMs: number;
    cpSyncMs: number;
    sha256Ms: number;
    putMs: number;
    getMs: number;
    rss: number;
  }[] = [];
  for (let run = 0; run < RUNS; run++) {
    const copy = join(dir, `copy-${run}.bin`);
    // Each phase starts with no dirty pages, so none pays for the write-back of the one before.
    execFileSync('sync');
    const cpMs = await timed(async () => execFileSync('cp', [source, copy]));
    // What the FileStore's fsync costs: making the copy durable. Reported, not part of the floor.
    const cpSyncMs = await timed(async () => execFileSync('sync', [copy]));
    const sha256Ms = await timed(() =>
      pipeline(createReadStream(source, { highWaterMark: READ_CHUNK }), createHash('sha256')),
    );
    await rm(copy);
    execFileSync('sync');

    let fileId = '';
    const { value: putMs, rssGrowthBytes: putRss } = await withRssPeak(() =>
      timed(async () => {
        fileId = (
          await storage.files.put(owner, 'big.bin', createReadStream(source, { highWaterMark: READ_CHUNK }))
        ).id;
      }),
    );
    // Drained as the HTTP layer would send it: every byte is read from the blob store.
    const { value: getMs, rssGrowthBytes: getRss } = await withRssPeak(() =>
      timed(async () => {
        let bytes = 0;
        for await (const chunk of (await storage.files.get(owner, { id: fileId })).stream)
          bytes += chunk.length;
        if (bytes !== SIZE) throw new Error(`get returned ${bytes} of ${SIZE} bytes`);
      }),
    );
    await storage.files.delete(owner, fileId);
    runs.push({
      floorMs: cpMs + sha256Ms,
      cpMs,
      cpSyncMs,
      sha256Ms,
      putMs,
      getMs,
      rss: Math.max(putRss, getRss),
    });
  }
  await storage.close();

  const floorMs = median(runs.map((r) => r.floorMs));
  const ferryMs = median(runs.map((r) => r.putMs + r.getMs));
  const durableFloorMs = median(runs.map((r) => r.floorMs + r.cpSyncMs));
  const rssGrowthMiB = Math.max(...runs.map((r) => r.rss)) / MIB;
  const ratio = ferryMs / floorMs;
  console.log(
    JSON.stringify({
      bench: 'storage',
      bytes: SIZE,
      runs: runs.map((r) => ({
        cp_ms: round(r.cpMs),
        cp_fsync_ms: round(r.cpSyncMs),
        sha256_ms: round(r.sha256Ms),
        floor_ms: round(r.floorMs),
        put_ms: round(r.putMs),
        get_ms: round(r.getMs),
        ferry_ms: round(r.putMs + r.getMs),
        rss_growth_mib: round(r.rss / MIB),
      })),
      median_floor_ms: round(floorMs),
      // The floor plus an fsync of the copy: the same durable work the FileStore does.
      median_durable_floor_ms: round(durableFloorMs),
      ratio_to_durable_floor: round(ferryMs / durableFloorMs, 3),
      median_ferry_ms: round(ferryMs),
      ratio: round(ratio, 3),
      rss_growth_mib: round(rssGrowthMiB),
      machine: machineReport(loadAtStart),
      target: TARGET,
      pass: ratio <= TARGET.ratio && rssGrowthMiB <= TARGET.rss_growth_mib,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** Deterministic, incompressible bytes (AES-CTR keystream), written in 1 MiB chunks. */
async function writeSource(path: string, size: number): Promise<void> {
  const { createCipheriv } = await import('node:crypto');
  const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, 7), Buffer.alloc(16));
  const zeros = Buffer.alloc(MIB);
  async function* chunks() {
    for (let left = size; left > 0; left -= MIB)
      yield cipher.update(left >= MIB ? zeros : zeros.subarray(0, left));
  }
  await pipeline(Readable.from(chunks()), createWriteStream(path));
}
