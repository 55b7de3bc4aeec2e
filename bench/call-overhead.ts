// Call-overhead benchmark: a no-file tool (server-everything's `echo`, published and
// unmodified) called FERRY_BENCH_CALLS times (default 1,000) directly with the SDK client over
// stdio, and through Ferry's whole pipeline (conventions, arguments, watchdog, output collection
// with workspace detection, answer) against the same server command, in the same run; then again
// with 1,000 files in the user's workspace. Targets (issue 21), in both cases: <= 0.25 ms added at
// p50, and Ferry's p95 at most 1 ms over the direct call's p95.
// FERRY_BENCH_WARMUP (default 3,000) calls on each side are not measured.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '@ferry/host';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median, percentile, round } from './_measure.js';

const CALLS = Number(process.env.FERRY_BENCH_CALLS ?? 1000);
// Both sides warm up alike, until V8 has optimized what a call runs (its compiler threads count in
// the CPU time too): after 50 calls both sides still ran several times slower than after 3,000
// (direct p50 0.29 ms and ~300 µs CPU per call after 500, 0.045 ms and ~35 µs after 3,000).
const WARMUP = Number(process.env.FERRY_BENCH_WARMUP ?? 3000);
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

/** Wall time of each call, and the CPU time this process spent per call (user + system). */
async function latencies(call: () => Promise<unknown>): Promise<Timings> {
  for (let i = 0; i < WARMUP; i++) await call();
  const out: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await call();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const cpu = process.cpuUsage(cpuStart);
  return Object.assign(out, { cpuUsPerCall: (cpu.user + cpu.system) / CALLS });
}

type Timings = number[] & { cpuUsPerCall: number };

// CPU per call is what a busy machine disturbs least: wall times there include waiting for a core.
const summary = (values: Timings) => ({
  p50_ms: round(median(values), 3),
  p95_ms: round(percentile(values, 95), 3),
  p99_ms: round(percentile(values, 99), 3),
  cpu_us_per_call: round(values.cpuUsPerCall, 1),
});

const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-calls-'));
try {
  // Direct: the SDK client and nothing else.
  const client = new Client({ name: 'bench-direct', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  const direct = await latencies(() => client.callTool({ name: 'echo', arguments: { message: 'hi' } }));
  await client.close();

  // Through Ferry.
  const storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  const host = createHost({
    config: {
      servers: { everything: { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:0/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  const owner = await storage.files.ensureUser('bench');
  const call = async () => {
    const response = await host.callTool({
      user: { owner, username: 'bench' },
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'hi' },
    });
    if (response.status !== 'finished')
      throw new Error(`call ${response.status}: ${JSON.stringify(response.forModel)}`);
  };
  const ferry = await latencies(call);

  // The same with 1,000 files in the user's workspace (detection walks it before and after).
  const workspace = await host.workspaces.forUser('bench');
  for (let i = 0; i < 10; i++) {
    const sub = join(workspace.hostDir, `dir-${i}`);
    await mkdir(sub, { recursive: true });
    for (let j = 0; j < 100; j++) await writeFile(join(sub, `file-${j}.txt`), `${i}-${j}`);
  }
  const ferryWithFiles = await latencies(call);
  await host.close();
  await storage.close();

  const directP50 = median(direct);
  const added = median(ferry) - directP50;
  const addedWithFiles = median(ferryWithFiles) - directP50;
  const directP95 = percentile(direct, 95);
  const p95Gap = percentile(ferry, 95) - directP95;
  const p95GapWithFiles = percentile(ferryWithFiles, 95) - directP95;
  console.log(
    JSON.stringify({
      bench: 'call-overhead',
      calls: CALLS,
      server: '@modelcontextprotocol/server-everything echo over stdio',
      direct: summary(direct),
      ferry: summary(ferry),
      ferry_with_1000_workspace_files: summary(ferryWithFiles),
      added_p50_ms: round(added, 3),
      added_p50_ms_with_1000_files: round(addedWithFiles, 3),
      p95_gap_ms: round(p95Gap, 3),
      p95_gap_ms_with_1000_files: round(p95GapWithFiles, 3),
      target: { added_p50_ms: 0.25, p95_gap_ms: 1 },
      pass: Math.max(added, addedWithFiles) <= 0.25 && Math.max(p95Gap, p95GapWithFiles) <= 1,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
