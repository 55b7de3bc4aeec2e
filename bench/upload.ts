// Upload benchmark: upload + download of a 1 GiB file through Ferry's HTTP API, against
// the storage benchmark's floor measured in the same run (`cp` of the file + Node SHA-256 of it).
// Ferry runs in a child process (`ferry start`, local disk + SQLite in a temp directory on the same
// filesystem as the source file) so its RSS can be read from /proc: VmRSS every 50 ms, plus VmHWM
// reset before each run. The upload streams the file as the request body (raw by default,
// BENCH_UPLOAD_FORM=multipart for multipart/form-data). The download receives every byte over
// HTTP and hashes it, and the digest must equal the source's: the storage benchmark's `get` (a
// drain) plus a verification it does not do. BENCH_DOWNLOAD_TO=file also writes the download to a
// file (what a browser does; on this project's VMs a write into fresh page cache costs 0.3-2 s
// per GiB at random, which the floor's `cp` pays only once). Each side runs FERRY_BENCH_RUNS times
// (default 3) and the medians are compared. The floor is the sum of the two, timed one after the
// other. Targets (issue 21): upload+download <= 1.5x floor, server RSS growth <= 64 MiB.
// Server CPU is split into kernel time, page faults and the main thread's share. Ferry runs with
// --trace-gc and `full_gcs` counts its Mark-Compact collections in each phase: 0-2 normally, dozens
// in a storm (a full collection every ~70 ms, "external memory pressure", doubling the server CPU
// per GiB). Ferry runs with the V8 options of apps/ferry/bin/run-ferry.mjs, which made storms
// rarer and shorter here (see there), not impossible.
// The same run also measures bench/support/minimal-file-server.ts, the least a Node HTTP server
// does for the same requests with the same durability (hash inline, writev, fsync, rename; a
// piped ReadStream down): raw bodies only. Ferry first in even runs, the minimal server first in
// odd ones. `ratio_to_minimal_node` is what Ferry's own work costs over Node's on this machine.
// Size: BENCH_UPLOAD_MIB or --mib N (default 1024). Prints one JSON document.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  benchCommand,
  benchScratch,
  deleteFile,
  endBench,
  type FerryProcess,
  failBench,
  MIB,
  machineReport,
  measureCopyHashFloor,
  median,
  procCpuMs,
  procMemory,
  procSchedMs,
  REPO_ROOT,
  resetPeakRss,
  round,
  sampleProcessRss,
  startFerryProcess,
  timed,
  writeRandomFile,
} from './_measure.js';

const SIZE_MIB = Number(argument('--mib') ?? process.env.BENCH_UPLOAD_MIB ?? 1024);
const SIZE = Math.round(SIZE_MIB * MIB);
const RUNS = Number(process.env.FERRY_BENCH_RUNS ?? 3);
const FORM = process.env.BENCH_UPLOAD_FORM === 'multipart' ? 'multipart' : 'raw';
const DOWNLOAD_TO = process.env.BENCH_DOWNLOAD_TO === 'file' ? 'file' : 'verify-only';
/** Client-side read size of the source file. */
const READ_CHUNK = 1024 * 1024;
const TARGET = { ratio: 1.5, rss_growth_mib: 64 };

if (!(SIZE > 0) || !(RUNS >= 1)) fail(new Error(`bad size (${SIZE_MIB} MiB) or runs (${RUNS})`));

/** Other work on the machine skews every timing here; reported next to them. */
const loadAtStart = loadavg()[0] ?? 0;
/** Ferry's full collections (its --trace-gc lines), counted as they are printed: a storm shows here. */
const fullGcs = fullGcCounter();
const { dir, deadline } = await benchScratch('ferry-bench-upload-', fail);
let ferry: FerryProcess | undefined;
let minimal: FerryProcess | undefined;

try {
  const source = join(dir, 'source.bin');
  await writeRandomFile(source, SIZE);
  ferry = await startFerryProcess({
    dir,
    config: { servers: {}, storage: { dataDir: join(dir, 'ferry') } },
    nodeArgs: ['--trace-gc'],
    onOutput: fullGcs.count,
  });
  const url = ferry.url;

  // Warm-up through the same routes with 1 MiB, so lazy initialisation (route compilation, the
  // multipart plugin, SQLite statements) is not counted as growth.
  const warm = join(dir, 'warm.bin');
  await writeRandomFile(warm, MIB, 3);
  const warmUp = async (base: string) => {
    const warmFile = await upload(base, warm, MIB, 'warm.bin');
    await download(base, warmFile.id, join(dir, 'warm-down.bin'));
    await deleteFile(base, warmFile.id);
  };
  await warmUp(url);
  if (FORM === 'raw') {
    minimal = await startFerryProcess({
      dir,
      script: [join(REPO_ROOT, 'bench/support/minimal-file-server.ts'), join(dir, 'minimal')],
    });
    await warmUp(minimal.url);
  }
  const baseline = procMemory(ferry.pid);
  if (!baseline) throw new Error('Ferry exited after the warm-up');

  const runs = [];
  for (let run = 0; run < RUNS; run++) {
    const floor = await measureCopyHashFloor(source, join(dir, 'copy.bin'));
    execFileSync('sync');
    const minimalFirst = run % 2 === 1;
    const reference =
      minimal && minimalFirst ? await minimalTransfer(minimal, source, floor.sha256, dir, true) : undefined;

    // VmHWM then covers this phase only; when the kernel refuses the reset, only samples count.
    const uploadHwm = resetPeakRss(ferry.pid);
    const uploadRss = sampleProcessRss(ferry.pid);
    let stored: (StoredFile & { tailMs: number }) | undefined;
    const uploadCpu = cpuMeter(ferry.pid);
    const uploadGcs = fullGcs.total;
    const uploadMs = await timed(async () => {
      stored = await upload(url, source, SIZE, `big-${run}.bin`);
    });
    const uploadCpuMs = uploadCpu();
    const uploadFullGcs = fullGcs.total - uploadGcs;
    const uploadMem = uploadRss.stop();
    if (!stored) throw new Error('upload returned nothing');
    if (stored.size !== SIZE) throw new Error(`stored ${stored.size} of ${SIZE} bytes`);
    if (stored.sha256 !== floor.sha256) throw new Error(`server sha256 ${stored.sha256} != ${floor.sha256}`);

    const downloadHwm = resetPeakRss(ferry.pid);
    const downloadRss = sampleProcessRss(ferry.pid);
    const target = join(dir, 'download.bin');
    let got = { bytes: 0, sha256: '', firstByteMs: 0, hashMs: 0 };
    const downloadCpu = cpuMeter(ferry.pid);
    const downloadGcs = fullGcs.total;
    const downloadMs = await timed(async () => {
      got = await download(url, stored?.id as string, target);
    });
    const downloadCpuMs = downloadCpu();
    const downloadFullGcs = fullGcs.total - downloadGcs;
    const downloadMem = downloadRss.stop();
    if (got.bytes !== SIZE) throw new Error(`downloaded ${got.bytes} of ${SIZE} bytes`);
    if (got.sha256 !== floor.sha256) throw new Error(`downloaded sha256 ${got.sha256} != ${floor.sha256}`);

    await deleteFile(url, stored.id);
    await rm(target, { force: true });
    execFileSync('sync');
    const uploadPeak = Math.max(uploadMem.sampledPeakBytes, uploadHwm ? uploadMem.hwmBytes : 0);
    const downloadPeak = Math.max(downloadMem.sampledPeakBytes, downloadHwm ? downloadMem.hwmBytes : 0);
    const peak = Math.max(uploadPeak, downloadPeak);
    const minimalRun =
      reference ?? (minimal ? await minimalTransfer(minimal, source, floor.sha256, dir, false) : undefined);
    runs.push({
      minimal: minimalRun,
      uploadFullGcs,
      downloadFullGcs,
      floor,
      uploadMs,
      downloadMs,
      uploadMem,
      downloadMem,
      peak,
      uploadPeak,
      downloadPeak,
      hwmReset: uploadHwm && downloadHwm,
      uploadCpuMs,
      downloadCpuMs,
      uploadTailMs: stored.tailMs,
      downloadFirstByteMs: got.firstByteMs,
      downloadHashMs: got.hashMs,
    });
  }

  const floorMs = median(runs.map((r) => r.floor.floorMs));
  const ferryMs = median(runs.map((r) => r.uploadMs + r.downloadMs));
  const minimalRuns = runs.flatMap((r) => (r.minimal ? [r.minimal] : []));
  const minimalMs = minimal ? median(minimalRuns.map((r) => r.uploadMs + r.downloadMs)) : undefined;
  const durableFloorMs = median(runs.map((r) => r.floor.floorMs + r.floor.cpSyncMs));
  const peakBytes = Math.max(...runs.map((r) => r.peak));
  const growthMiB = (peakBytes - baseline.rss) / MIB;
  const ratio = ferryMs / floorMs;
  const s = (ms: number) => round(ms / 1000, 3);
  const mib = (bytes: number) => round(bytes / MIB, 1);
  const ratioPass = ratio <= TARGET.ratio;
  const rssPass = growthMiB <= TARGET.rss_growth_mib;
  console.log(
    JSON.stringify({
      bench: 'upload',
      command: command(),
      bytes: SIZE,
      size_mib: SIZE_MIB,
      form: FORM,
      download_to: DOWNLOAD_TO,
      runs: runs.map((r) => ({
        cp_s: s(r.floor.cpMs),
        cp_fsync_s: s(r.floor.cpSyncMs),
        sha256_s: s(r.floor.sha256Ms),
        floor_s: s(r.floor.floorMs),
        upload_s: s(r.uploadMs),
        download_s: s(r.downloadMs),
        total_s: s(r.uploadMs + r.downloadMs),
        ratio: round((r.uploadMs + r.downloadMs) / r.floor.floorMs, 3),
        upload_mib_s: round(SIZE / MIB / (r.uploadMs / 1000), 1),
        download_mib_s: round(SIZE / MIB / (r.downloadMs / 1000), 1),
        // Server work after the last body byte: last write, fsync, rename, sniff, catalog.
        upload_after_body_s: s(r.uploadTailMs),
        download_first_byte_s: s(r.downloadFirstByteMs),
        // The client's own SHA-256 of the download, inside download_s (the verification).
        download_client_sha256_s: s(r.downloadHashMs),
        // Mark-Compact collections in Ferry during each phase: a few, or dozens in a storm.
        full_gcs: { upload: r.uploadFullGcs, download: r.downloadFullGcs },
        server_rss_upload_peak_mib: mib(r.uploadPeak),
        server_rss_download_peak_mib: mib(r.downloadPeak),
        // true: the peaks include VmHWM (reset before each phase), not only the 50 ms samples.
        vmhwm_reset: r.hwmReset,
        rss_samples: r.uploadMem.samples + r.downloadMem.samples,
        // CPU seconds used during each phase by the server and by this (client) process.
        cpu_s: {
          upload_server: s(r.uploadCpuMs.server),
          // Of it in the kernel, and the page faults taken (each a fresh page mapped and zeroed).
          upload_server_system: s(r.uploadCpuMs.serverSystem),
          upload_server_minor_faults: r.uploadCpuMs.serverMinorFaults,
          // The rest ran on other threads: V8's GC helpers (a storm of full collections shows
          // here, see the header) and libuv's pool (the file writes).
          upload_server_main_thread: s(r.uploadCpuMs.serverMainThread),
          // Runnable but not running: the server's main thread waiting for a CPU (shared machine).
          upload_server_main_thread_cpu_wait: s(r.uploadCpuMs.serverWait),
          upload_client: s(r.uploadCpuMs.client),
          download_server: s(r.downloadCpuMs.server),
          download_server_system: s(r.downloadCpuMs.serverSystem),
          download_server_minor_faults: r.downloadCpuMs.serverMinorFaults,
          download_server_main_thread: s(r.downloadCpuMs.serverMainThread),
          download_client: s(r.downloadCpuMs.client),
          download_server_main_thread_cpu_wait: s(r.downloadCpuMs.serverWait),
        },
        minimal_node_server: r.minimal && {
          upload_s: s(r.minimal.uploadMs),
          download_s: s(r.minimal.downloadMs),
          total_s: s(r.minimal.uploadMs + r.minimal.downloadMs),
          ratio: round((r.minimal.uploadMs + r.minimal.downloadMs) / r.floor.floorMs, 3),
          measured_first: r.minimal.first,
          cpu_s: { upload_server: s(r.minimal.uploadCpuMs), download_server: s(r.minimal.downloadCpuMs) },
        },
      })),
      upload_s: s(median(runs.map((r) => r.uploadMs))),
      download_s: s(median(runs.map((r) => r.downloadMs))),
      total_s: s(ferryMs),
      floor_s: s(floorMs),
      ratio: round(ratio, 3),
      // The floor plus an fsync of the copy: the durable work Ferry's put does (it fsyncs).
      durable_floor_s: s(durableFloorMs),
      ratio_to_durable_floor: round(ferryMs / durableFloorMs, 3),
      // Medians of the minimal Node server's runs (null with a multipart body, which it does not parse).
      minimal_node_server:
        minimalMs === undefined
          ? null
          : {
              upload_s: s(median(minimalRuns.map((r) => r.uploadMs))),
              download_s: s(median(minimalRuns.map((r) => r.downloadMs))),
              total_s: s(minimalMs),
              ratio: round(minimalMs / floorMs, 3),
            },
      ratio_to_minimal_node: minimalMs === undefined ? null : round(ferryMs / minimalMs, 3),
      sha256_verified: true,
      server_rss_mib: {
        baseline: mib(baseline.rss),
        peak: mib(peakBytes),
        growth: round(growthMiB, 1),
      },
      machine: machineReport(loadAtStart),
      target: TARGET,
      pass_ratio: ratioPass,
      pass_rss: rssPass,
      pass: ratioPass && rssPass,
    }),
  );
} catch (error) {
  fail(error);
} finally {
  await minimal?.stop();
  await endBench(deadline, ferry, dir);
}

interface StoredFile {
  id: string;
  size: number;
  sha256: string;
}

/**
 * POSTs the file as the request body, read from disk as it is sent (never whole in memory).
 * `tailMs`: from the last body byte handed to the socket to the answer, i.e. what the server does
 * after the bytes (last write, fsync, rename, sniffing, catalog).
 */
function upload(
  url: string,
  path: string,
  size: number,
  name: string,
): Promise<StoredFile & { tailMs: number }> {
  let sentAt = process.hrtime.bigint();
  const boundary = `ferry-bench-${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const multipart = FORM === 'multipart';
  const body = multipart
    ? Readable.from(
        (async function* () {
          yield head;
          yield* createReadStream(path, { highWaterMark: READ_CHUNK });
          yield tail;
        })(),
        { objectMode: false },
      )
    : createReadStream(path, { highWaterMark: READ_CHUNK });
  const target = new URL(multipart ? '/api/files' : `/api/files?name=${encodeURIComponent(name)}`, url);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': multipart
            ? `multipart/form-data; boundary=${boundary}`
            : 'application/octet-stream',
          'content-length': String(multipart ? head.length + size + tail.length : size),
        },
      },
      (res) => {
        const tailMs = Number(process.hrtime.bigint() - sentAt) / 1e6;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 201) return reject(new Error(`upload answered ${res.statusCode}: ${text}`));
          const file = (JSON.parse(text) as { files: StoredFile[] }).files[0];
          if (!file) return reject(new Error(`upload answered without a file: ${text}`));
          resolve({ ...file, tailMs });
        });
      },
    );
    req.on('error', reject);
    req.on('finish', () => {
      sentAt = process.hrtime.bigint();
    });
    pipeline(body, req).catch(reject);
  });
}

/** GETs the file's content, hashing each chunk; with BENCH_DOWNLOAD_TO=file also into `path`. */
function download(
  url: string,
  id: string,
  path: string,
): Promise<{ bytes: number; sha256: string; firstByteMs: number; hashMs: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(new URL(`/api/files/${id}/content`, url), (res) => {
      const firstByteMs = Number(process.hrtime.bigint() - started) / 1e6;
      // Time this (client) thread spends in SHA-256: the verification the floor pays once too.
      let hashNs = 0n;
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`download answered ${res.statusCode}`));
      }
      const hash = createHash('sha256');
      let bytes = 0;
      // A 'data' listener beside the pipe sees the socket's chunks as they are, without the
      // per-chunk promises of an async-generator stage (which cost this process more CPU than the
      // hashing itself, measured here).
      res.on('data', (chunk: Buffer) => {
        const before = process.hrtime.bigint();
        hash.update(chunk);
        hashNs += process.hrtime.bigint() - before;
        bytes += chunk.length;
      });
      const done = () =>
        resolve({ bytes, sha256: hash.digest('hex'), firstByteMs, hashMs: Number(hashNs) / 1e6 });
      if (DOWNLOAD_TO === 'file') {
        pipeline(res, createWriteStream(path, { highWaterMark: READ_CHUNK })).then(done, reject);
      } else {
        res.once('end', done);
        res.once('error', reject);
      }
    });
    req.on('error', reject);
    req.end();
  });
}

/** The minimal server's upload and download of the source, checked like Ferry's (bytes, SHA-256). */
async function minimalTransfer(
  server: FerryProcess,
  source: string,
  sha256: string,
  dir: string,
  first: boolean,
) {
  let stored: StoredFile | undefined;
  const uploadCpu = cpuMeter(server.pid);
  const uploadMs = await timed(async () => {
    stored = await upload(server.url, source, SIZE, 'big.bin');
  });
  const uploadCpuMs = uploadCpu().server;
  if (stored?.size !== SIZE || stored.sha256 !== sha256)
    throw new Error(`minimal server stored ${stored?.size} bytes, sha256 ${stored?.sha256}`);
  const target = join(dir, 'minimal-download.bin');
  let got = { bytes: 0, sha256: '' };
  const downloadCpu = cpuMeter(server.pid);
  const downloadMs = await timed(async () => {
    got = await download(server.url, stored?.id as string, target);
  });
  const downloadCpuMs = downloadCpu().server;
  if (got.bytes !== SIZE || got.sha256 !== sha256)
    throw new Error(`minimal server sent ${got.bytes} bytes, sha256 ${got.sha256}`);
  await deleteFile(server.url, stored.id);
  await rm(target, { force: true });
  execFileSync('sync');
  return { uploadMs, downloadMs, uploadCpuMs, downloadCpuMs, first };
}

/**
 * Starts counting CPU time of the server and of this process, and how long the server's main
 * thread (where an upload is parsed and hashed) sat runnable waiting for a CPU.
 */
function cpuMeter(pid: number): () => {
  server: number;
  serverSystem: number;
  serverMinorFaults: number;
  serverMainThread: number;
  client: number;
  serverWait: number;
} {
  const zero = { userMs: 0, systemMs: 0, minorFaults: 0 };
  const start = procCpuMs(pid) ?? zero;
  // The main thread's time on a CPU: the rest is V8's helper threads (GC) and libuv's pool.
  const sched = procSchedMs(pid) ?? { runMs: 0, waitMs: 0 };
  const client = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(client);
    const now = procCpuMs(pid) ?? start;
    const schedNow = procSchedMs(pid) ?? sched;
    return {
      server: now.userMs + now.systemMs - start.userMs - start.systemMs,
      serverSystem: now.systemMs - start.systemMs,
      serverMinorFaults: now.minorFaults - start.minorFaults,
      serverMainThread: schedNow.runMs - sched.runMs,
      client: (used.user + used.system) / 1000,
      serverWait: schedNow.waitMs - sched.waitMs,
    };
  };
}

function fullGcCounter(): { count: (text: string) => void; readonly total: number } {
  let total = 0;
  let partial = '';
  return {
    count(text) {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.includes(': Mark-Compact ')) total += 1;
    },
    get total() {
      return total;
    },
  };
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

function command(): string {
  return benchCommand('upload', [
    'BENCH_UPLOAD_MIB',
    'FERRY_BENCH_RUNS',
    'BENCH_UPLOAD_FORM',
    'BENCH_DOWNLOAD_TO',
    'BENCH_TIMEOUT_S',
  ]);
}

/** One JSON document with the reason, so scripts/bench.mjs reports it; then cleanup and exit 1. */
function fail(error: unknown): never {
  return failBench('upload', command(), error, ferry);
}
