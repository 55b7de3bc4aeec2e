// Shared by the benchmarks: timing, RSS sampling and the median of repeated runs.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { V8_OPTIONS } from '../apps/ferry/bin/run-ferry.mjs';

export const MIB = 1024 * 1024;

/** Runs `fn` and returns its wall time in milliseconds. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Peak RSS growth over the RSS when `fn` starts, sampled every 5 ms while it runs. No GC is forced
 * first: after a forced full GC, V8 lowered its external-memory limit and every later 1 GiB stream
 * loop ran about 3x slower (measured here), which would falsify the timings next to it.
 */
export async function withRssPeak<T>(fn: () => Promise<T>): Promise<{ value: T; rssGrowthBytes: number }> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, rssGrowthBytes: peak - baseline };
  } finally {
    clearInterval(timer);
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}

// ---------------------------------------------------------------------------------------------
// Helpers of the HTTP benchmarks (bench/upload.ts, bench/concurrent-calls.ts). Additive: the
// functions above, and so bench/storage.ts and bench/call-overhead.ts, are unchanged.
// ---------------------------------------------------------------------------------------------

/** The value at percentile `p` (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function latencySummary(values: readonly number[]): LatencySummary {
  if (values.length === 0) return { count: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0, max_ms: 0 };
  return {
    count: values.length,
    p50_ms: round(median([...values]), 1),
    p95_ms: round(percentile(values, 95), 1),
    p99_ms: round(percentile(values, 99), 1),
    max_ms: round(Math.max(...values), 1),
  };
}

/**
 * Deterministic, incompressible bytes (AES-CTR keystream), streamed to `path` in 1 MiB chunks:
 * the same bytes as bench/storage.ts's source file, never more than a chunk in memory.
 */
export async function writeRandomFile(path: string, size: number, seed = 7): Promise<void> {
  const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, seed), Buffer.alloc(16));
  const zeros = Buffer.alloc(Math.min(MIB, Math.max(size, 1)));
  async function* chunks() {
    for (let left = size; left > 0; left -= zeros.length)
      yield cipher.update(left >= zeros.length ? zeros : zeros.subarray(0, left));
  }
  await pipeline(Readable.from(chunks()), createWriteStream(path));
}

export interface FloorRun {
  /** `cp source copy`. */
  cpMs: number;
  /** `sync copy` after the cp: what making the copy durable costs. Reported, not in the floor. */
  cpSyncMs: number;
  /** SHA-256 of the source with Node's crypto, read in `readChunk` pieces. */
  sha256Ms: number;
  /** cpMs + sha256Ms: bench/storage.ts's floor. */
  floorMs: number;
  /** Hex digest of the source (the reference for any round trip measured next to it). */
  sha256: string;
}

/**
 * The storage benchmark's floor, measured the same way as bench/storage.ts does it: a `sync` so
 * no earlier write-back is paid for, `cp` of the file, `sync` of the copy (timed apart), a
 * SHA-256 of the source with Node's crypto; the copy is removed and synced away afterwards.
 */
export async function measureCopyHashFloor(
  source: string,
  copy: string,
  readChunk = 64 * 1024,
): Promise<FloorRun> {
  execFileSync('sync');
  const cpMs = await timed(async () => execFileSync('cp', [source, copy]));
  const cpSyncMs = await timed(async () => execFileSync('sync', [copy]));
  const hash = createHash('sha256');
  const sha256Ms = await timed(() => pipeline(createReadStream(source, { highWaterMark: readChunk }), hash));
  await rm(copy, { force: true });
  execFileSync('sync');
  return { cpMs, cpSyncMs, sha256Ms, floorMs: cpMs + sha256Ms, sha256: hash.digest('hex') };
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status, in bytes; undefined once it is gone. */
export function procMemory(pid: number): { rss: number; hwm: number } | undefined {
  let status: string;
  try {
    status = readProcFile(`/proc/${pid}/status`);
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') * 1024, hwm: kib('VmHWM') * 1024 };
}

/**
 * Proportional set size in bytes (smaps_rollup): pages shared with other processes, such as node's
 * own code, charged in shares. undefined when the process is gone.
 */
export function procPss(pid: number): number | undefined {
  let rollup: string;
  try {
    rollup = readProcFile(`/proc/${pid}/smaps_rollup`);
  } catch {
    return undefined;
  }
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on every Linux platform). */
const USER_HZ = 100;

/**
 * CPU time (user + system, all threads) a process has used so far, in milliseconds, from
 * /proc/<pid>/stat; undefined once it is gone.
 */
export function procCpuMs(
  pid: number,
): { userMs: number; systemMs: number; minorFaults: number } | undefined {
  let stat: string;
  try {
    stat = readProcFile(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // Fields after the parenthesised command name start at field 3 (state); minflt is 10, utime and
  // stime are 14, 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    userMs: (Number(fields[11]) * 1000) / USER_HZ,
    systemMs: (Number(fields[12]) * 1000) / USER_HZ,
    minorFaults: Number(fields[7]),
  };
}

/**
 * Scheduler times of a process's main thread from /proc/<pid>/schedstat, in milliseconds: time on
 * a CPU, and time runnable but waiting for one (what a busy, shared machine costs it).
 */
export function procSchedMs(pid: number): { runMs: number; waitMs: number } | undefined {
  try {
    const [run, wait] = readProcFile(`/proc/${pid}/schedstat`).trim().split(' ');
    return { runMs: Number(run) / 1e6, waitMs: Number(wait) / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * Resets a process's VmHWM to its current RSS (`echo 5 > /proc/<pid>/clear_refs`, Linux >= 4.0),
 * so the high-water mark read later covers only what follows. False when the kernel refused.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeProcFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface ProcessRssSample {
  /** VmRSS when sampling started. */
  baselineBytes: number;
  /** Largest VmRSS seen by the sampler (every `intervalMs`). */
  sampledPeakBytes: number;
  /** VmHWM at the end: catches spikes between samples (exact if `resetPeakRss` was called first). */
  hwmBytes: number;
  samples: number;
}

/**
 * Samples another process's VmRSS every `intervalMs` (default 50 ms) until `stop()`; `stop` reads
 * VmHWM once more. For the server side of a benchmark that runs in a child process.
 */
export function sampleProcessRss(pid: number, intervalMs = 50): { stop(): ProcessRssSample } {
  const first = procMemory(pid);
  if (!first) throw new Error(`process ${pid} is not running: cannot sample its RSS`);
  let peak = first.rss;
  let hwm = first.hwm;
  let samples = 1;
  const timer = setInterval(() => {
    const now = procMemory(pid);
    if (!now) return;
    samples += 1;
    peak = Math.max(peak, now.rss);
    hwm = Math.max(hwm, now.hwm);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const last = procMemory(pid);
      if (last) {
        samples += 1;
        peak = Math.max(peak, last.rss);
        hwm = Math.max(hwm, last.hwm);
      }
      return { baselineBytes: first.rss, sampledPeakBytes: peak, hwmBytes: hwm, samples };
    },
  };
}

// Synchronous on purpose: /proc reads never block on disk, and a sampler must not queue up.
function readProcFile(path: string): string {
  return readFileSync(path, 'utf8');
}

function writeProcFile(path: string, text: string): void {
  writeFileSync(path, text);
}

/** The repository root (bench/ is one level below it). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The machine block of a bench's report: cores, Node, and the 1-minute load average at the start
 * (`loadAtStart`, read before any work) and now. Other work on the machine skews every timing.
 */
export function machineReport(loadAtStart: number) {
  return {
    cpus: cpus().length,
    node: process.version,
    loadavg_1m_at_start: round(loadAtStart),
    loadavg_1m_at_end: round(loadavg()[0] ?? 0),
  };
}

/** The end of a bench that started Ferry in `dir`, however it ended: no deadline, no Ferry, no dir. */
export async function endBench(deadline: NodeJS.Timeout, ferry: FerryProcess | undefined, dir: string) {
  clearTimeout(deadline);
  await ferry?.stop();
  await rm(dir, { recursive: true, force: true });
}

export interface FerryProcessOptions {
  /** The whole ferry.config.json, written to `<dir>/ferry.config.json` (not with `script`). */
  config?: Record<string, unknown>;
  /** A scratch directory for the config file. */
  dir: string;
  /** How long `ferry start` may take to print its URL. @default 60000 */
  startTimeoutMs?: number;
  /**
   * Node options the benchmark itself needs (e.g. --trace-gc). BENCH_FERRY_NODE_ARGS (split on
   * spaces, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) comes first, whatever the benchmark adds.
   */
  nodeArgs?: string[];
  /**
   * A script and its arguments to run (under tsx, like Ferry) instead of `ferry start`: a reference
   * server for the same run, which prints its URL as Ferry does (e.g. bench/support/minimal-file-server.ts).
   */
  script?: string[];
  /** Sees everything the server prints, stdout and stderr, as it comes (e.g. --trace-gc lines). */
  onOutput?: (text: string) => void;
}

export interface FerryProcess {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The Ferry server itself (no wrapper process in between): sample its /proc/<pid>/status. */
  pid: number;
  /** The last 16 KiB of what it printed (stderr, and its log lines on stdout), for failure messages. */
  outputTail(): string;
  /** SIGTERM (Ferry closes its MCP servers), then SIGKILL to the process group after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `ferry start` (apps/ferry/src/main.ts under tsx, as bin/ferry.mjs does, but without the
 * wrapper process, so `pid` is the server) on a free loopback port with the given config. FERRY_*
 * variables of this process are not passed on: the config alone decides. The child leads its own
 * process group so that a hard stop also reaches the MCP servers it started.
 */
export async function startFerryProcess(options: FerryProcessOptions): Promise<FerryProcess> {
  const configPath = join(options.dir, 'ferry.config.json');
  if (!options.script) await writeFile(configPath, JSON.stringify(options.config, null, 2));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('FERRY_')) env[name] = value;
  env.FERRY_LOG_LEVEL = 'warn';
  const main = join(REPO_ROOT, 'apps/ferry/src/main.ts');
  const nodeArgs = [
    ...(process.env.BENCH_FERRY_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ...(options.nodeArgs ?? []),
  ];
  const args = [
    ...(options.script ? [] : V8_OPTIONS),
    ...nodeArgs,
    '--import',
    import.meta.resolve('tsx'),
    '--conditions=ferry-source',
    ...(options.script ?? [main, 'start', '--host', '127.0.0.1', '--port', '0', '--config', configPath]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  let output = '';
  // BENCH_FERRY_LOG=<file>: everything the server prints (e.g. with --trace-gc) is kept there too.
  const log = process.env.BENCH_FERRY_LOG ? createWriteStream(process.env.BENCH_FERRY_LOG) : undefined;
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-16 * 1024);
    output = (output + text).slice(-16 * 1024);
    log?.write(text);
    options.onOutput?.(text);
  });
  // A benchmark that dies must not leave a server (and its MCP servers) behind.
  const killOnExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      reject(new Error(`Ferry did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${stderr}`));
    }, options.startTimeoutMs ?? 60_000);
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      log?.write(text);
      options.onOutput?.(text);
      // Fastify's log lines (level warn and up) come on stdout.
      output = (output + text).slice(-16 * 1024);
      if (stdout.length > 64 * 1024) return;
      stdout += text;
      const found = /Ferry is listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Ferry exited during startup (${code ?? signal}):\n${stderr}\n${stdout}`));
    });
  }).catch((error: unknown) => {
    killGroup(child, 'SIGKILL');
    process.off('exit', killOnExit);
    throw error;
  });

  return {
    url,
    pid: child.pid as number,
    outputTail: () => output,
    async stop(graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // Anything of the group still there (an MCP server that ignored its stdin closing) goes too.
      killGroup(child, 'SIGKILL');
      process.off('exit', killOnExit);
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** How to run a benchmark again as it was run: the environment it read, then the command. */
export function benchCommand(bench: string, envNames: readonly string[]): string {
  const env = envNames
    .filter((name) => process.env[name] !== undefined)
    .map((name) => `${name}=${process.env[name]} `)
    .join('');
  return `${env}node scripts/bench.mjs ${bench}`;
}

/** Every process below `root` (not `root` itself), from /proc: the sandbox's processes included. */
export function descendantsOf(root: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command name: state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Exited while scanning.
    }
  }
  const out: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = childrenOf.get(queue.pop() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

/**
 * A scratch directory for a bench's large files, removed whatever happens (normal end, exception,
 * Ctrl-C), and a deadline (BENCH_TIMEOUT_S, default 30 min) that fails the bench through `fail`.
 */
export async function benchScratch(
  prefix: string,
  fail: (error: Error) => never,
): Promise<{ dir: string; deadline: NodeJS.Timeout }> {
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_S ?? 1800) * 1000;
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      removeDir();
      process.exit(130);
    });
  }
  const deadline = setTimeout(
    () => fail(new Error(`timed out after ${timeoutMs / 1000} s (BENCH_TIMEOUT_S); temp files removed`)),
    timeoutMs,
  );
  deadline.unref();
  return { dir, deadline };
}

/** DELETE /api/files/{id} of a Ferry the bench started; rejects unless it answers 200. */
export function deleteFile(url: string, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(`/api/files/${id}`, url), { method: 'DELETE' }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`delete answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** A failed bench: one JSON document with the reason (scripts/bench.mjs reports it), then exit 1. */
export function failBench(bench: string, command: string, error: unknown, ferry?: FerryProcess): never {
  const message = error instanceof Error ? error.message : String(error);
  console.log(
    JSON.stringify({
      bench,
      command,
      error: message,
      server_output_tail: ferry?.outputTail().slice(-2000),
      pass: false,
    }),
  );
  process.exit(1);
}
