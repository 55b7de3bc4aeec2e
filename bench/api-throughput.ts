// API throughput benchmark (issue 21): requests per second of Ferry's hot read paths against a
// bare Fastify (the same Fastify as Ferry) serving the same JSON and the same bytes, in the same
// run. Ferry runs as a child process (`ferry start`, SQLite + local disk in a temp directory, proxy
// auth so every request authenticates); the bare server runs in a child process of its own, so
// both get the same treatment and neither shares an event loop with the load generator
// (autocannon, in this process). Seeded: BENCH_API_FILES (default 200) small files of one user,
// one of them 4 KiB. Paths, each against Ferry then the bare server:
//   listing   GET /api/files?limit=50
//   metadata  GET /api/files/{id}
//   download  GET /api/files/{id}/content (the 4 KiB file)
//   me        GET /api/me (the per-request auth lookup plus the user's usage and limits)
// The bare server answers with the body Ferry gave for that path just before the run: the JSON
// parsed once and sent as an object (Fastify stringifies it, as a route without a schema does),
// the 4 KiB as a Buffer. Each target gets BENCH_API_WARMUP_S (default 1) of warm-up, then
// BENCH_API_DURATION_S (default 5) with BENCH_API_CONNECTIONS (default 16) connections.
// BENCH_API_TARGETS=listing,download picks paths. Reported per path: req/s (mean), p50/p99
// latency, errors, non-2xx, the Ferry/bare ratio; targets (listing and download >= 0.35x bare)
// give `pass` without asserting. Profile Ferry with BENCH_FERRY_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=/tmp/prof". Prints one JSON document.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  benchCommand,
  benchScratch,
  endBench,
  type FerryProcess,
  failBench,
  machineReport,
  procCpuMs,
  REPO_ROOT,
  round,
  startFerryProcess,
} from './_measure.js';

const BENCH = 'api-throughput';
const ENV_NAMES = [
  'BENCH_API_FILES',
  'BENCH_API_DURATION_S',
  'BENCH_API_WARMUP_S',
  'BENCH_API_CONNECTIONS',
  'BENCH_API_TARGETS',
  'BENCH_FERRY_NODE_ARGS',
];
const TARGET_RATIO = 0.35;
/** Paths with a target in issue 21; the others are reported only. */
const TARGETED = new Set(['listing', 'download']);
const PROXY_SECRET = 'bench-proxy-secret-0123456789';
const USER = 'bench';
const DOWNLOAD_BYTES = 4096;

/** What the bare server needs to answer: path → body (a JSON value, or bytes as base64). */
interface BarePayload {
  routes: { path: string; json?: unknown; base64?: string }[];
}

async function main(): Promise<void> {
  const files = Number(process.env.BENCH_API_FILES ?? 200);
  const durationS = Number(process.env.BENCH_API_DURATION_S ?? 5);
  const warmupS = Number(process.env.BENCH_API_WARMUP_S ?? 1);
  const connections = Number(process.env.BENCH_API_CONNECTIONS ?? 16);
  const only = process.env.BENCH_API_TARGETS?.split(',').filter(Boolean);
  const loadAtStart = loadavg()[0] ?? 0;
  const { dir, deadline } = await benchScratch('ferry-bench-api-', fail);
  let ferry: FerryProcess | undefined;
  let bare: BareProcess | undefined;

  function fail(error: unknown): never {
    failBench(BENCH, benchCommand(BENCH, ENV_NAMES), error, ferry);
  }
  if (!(files >= 1) || !(durationS > 0) || !(warmupS >= 0) || !(connections >= 1)) {
    fail(new Error('bad BENCH_API_FILES, BENCH_API_DURATION_S, BENCH_API_WARMUP_S or BENCH_API_CONNECTIONS'));
  }

  try {
    ferry = await startFerryProcess({
      dir,
      config: {
        servers: {},
        storage: { dataDir: join(dir, 'ferry') },
        auth: {
          mode: 'proxy',
          header: 'x-forwarded-user',
          trustedProxies: ['127.0.0.1', '::1'],
          proxySecret: PROXY_SECRET,
        },
      },
    });
    const headers = { 'x-forwarded-user': USER, 'x-ferry-proxy-secret': PROXY_SECRET };
    const refused = await fetch(new URL('/api/files', ferry.url));
    if (refused.status !== 401) throw new Error(`proxy auth not in force: ${refused.status} instead of 401`);

    // The files: names spread over the alphabet so the name order is not the insertion order.
    const download = Buffer.alloc(DOWNLOAD_BYTES);
    for (let i = 0; i < DOWNLOAD_BYTES; i++) download[i] = (i * 31 + 7) % 251;
    let downloadId = '';
    for (let i = 0; i < files; i++) {
      const name = i === 0 ? 'download-4k.bin' : `file-${((i * 7919) % 100_000).toString(36)}-${i}.txt`;
      const body = i === 0 ? download : Buffer.from(`file ${i}\n`.repeat(1 + (i % 20)));
      const uploaded = await api<{ files: { id: string; sha256: string }[] }>(
        ferry.url,
        `/api/files?name=${name}`,
        headers,
        { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } },
      );
      const stored = uploaded.files[0];
      if (!stored) throw new Error(`uploading ${name} stored nothing`);
      if (i === 0) {
        if (stored.sha256 !== sha256(download))
          throw new Error('the 4 KiB file was stored with another digest');
        downloadId = stored.id;
      }
    }

    const paths = {
      listing: '/api/files?limit=50',
      metadata: `/api/files/${downloadId}`,
      download: `/api/files/${downloadId}/content`,
      me: '/api/me',
    };
    const names = (Object.keys(paths) as (keyof typeof paths)[]).filter(
      (name) => only === undefined || only.includes(name),
    );
    // What Ferry answers is what the bare server will answer.
    const payload: BarePayload = { routes: [] };
    for (const name of names) {
      const response = await fetch(new URL(paths[name], ferry.url), { headers });
      const bytes = Buffer.from(await response.arrayBuffer());
      if (response.status !== 200) throw new Error(`${paths[name]} answered ${response.status}`);
      if (name === 'download') {
        if (!bytes.equals(download)) throw new Error('the download differs from the uploaded bytes');
        payload.routes.push({ path: paths[name], base64: bytes.toString('base64') });
      } else {
        payload.routes.push({ path: paths[name], json: JSON.parse(bytes.toString('utf8')) });
      }
    }
    const listed = payload.routes.find((route) => route.path === paths.listing)?.json as
      | { items: unknown[]; total: number }
      | undefined;
    if (listed && (listed.items.length !== Math.min(50, files) || listed.total !== files)) {
      throw new Error(`listing holds ${listed.items.length} items of ${listed.total}, not 50 of ${files}`);
    }
    const payloadPath = join(dir, 'bare-payload.json');
    await writeFile(payloadPath, JSON.stringify(payload));
    bare = await startBare(payloadPath);
    for (const route of payload.routes) {
      const response = await fetch(new URL(route.path, bare.url));
      const bytes = Buffer.from(await response.arrayBuffer());
      const expected =
        route.base64 !== undefined
          ? Buffer.from(route.base64, 'base64')
          : Buffer.from(JSON.stringify(route.json));
      if (response.status !== 200 || !bytes.equals(expected)) throw new Error(`bare ${route.path} differs`);
    }

    const results: Record<string, unknown> = {};
    let pass = true;
    for (const name of names) {
      const load = { connections, durationS, warmupS };
      const ferryRun = await loadTest(new URL(paths[name], ferry.url).href, headers, load, ferry.pid);
      const bareRun = await loadTest(new URL(paths[name], bare.url).href, {}, load, bare.pid);
      const ratio = bareRun.requests_per_s > 0 ? ferryRun.requests_per_s / bareRun.requests_per_s : 0;
      const clean = ferryRun.errors + ferryRun.non_2xx + bareRun.errors + bareRun.non_2xx === 0;
      const targeted = TARGETED.has(name);
      const ok = clean && (!targeted || ratio >= TARGET_RATIO);
      if (!ok) pass = false;
      results[name] = {
        path: paths[name],
        ferry: ferryRun,
        bare: bareRun,
        ratio: round(ratio, 3),
        // Less sensitive to other work on the machine than req/s: server CPU per request.
        cpu_ratio_bare_over_ferry:
          ferryRun.cpu_us_per_request > 0
            ? round(bareRun.cpu_us_per_request / ferryRun.cpu_us_per_request, 3)
            : null,
        target_ratio: targeted ? TARGET_RATIO : null,
        pass: ok,
      };
    }

    console.log(
      JSON.stringify({
        bench: BENCH,
        command: benchCommand(BENCH, ENV_NAMES),
        load_generator: `autocannon ${autocannonVersion()} in the bench process; Ferry and the bare Fastify in child processes`,
        fastify: fastifyVersion(),
        seeded_files: files,
        connections,
        duration_s: durationS,
        warmup_s: warmupS,
        auth: 'proxy (x-forwarded-user + shared secret, checked on every request)',
        results,
        target: `listing and download >= ${TARGET_RATIO}x bare Fastify, no errors`,
        pass,
        machine: machineReport(loadAtStart),
      }),
    );
  } catch (error) {
    fail(error);
  } finally {
    await bare?.stop();
    await endBench(deadline, ferry, dir);
  }
}

async function api<T>(
  base: string,
  path: string,
  headers: Record<string, string>,
  init: { method: string; body: Buffer; headers: Record<string, string> },
): Promise<T> {
  const response = await fetch(new URL(path, base), {
    method: init.method,
    body: init.body,
    headers: { ...headers, ...init.headers },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------
// The load generator. autocannon ships no types: the part used here, typed here.
// ---------------------------------------------------------------------------------------------

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

/** Fastify as Ferry resolves it (apps/ferry depends on it): the bare server runs the same one. */
const ferryRequire = createRequire(join(REPO_ROOT, 'apps/ferry/package.json'));

const autocannonVersion = () => packageVersion(require, 'autocannon');
const fastifyVersion = () => packageVersion(ferryRequire, 'fastify');

function packageVersion(from: NodeJS.Require, name: string): string {
  return (JSON.parse(readFileSync(from.resolve(`${name}/package.json`), 'utf8')) as { version: string })
    .version;
}

interface LoadRun {
  requests_per_s: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  timeouts: number;
  non_2xx: number;
  /** The server's CPU time (user + system, from /proc) during the run, per request answered. */
  cpu_us_per_request: number;
}

async function loadTest(
  url: string,
  headers: Record<string, string>,
  load: { connections: number; durationS: number; warmupS: number },
  serverPid: number,
): Promise<LoadRun> {
  const options = { url, headers, connections: load.connections, pipelining: 1 };
  if (load.warmupS > 0) await autocannon({ ...options, duration: load.warmupS });
  const cpuBefore = procCpuMs(serverPid);
  const result = await autocannon({ ...options, duration: load.durationS });
  const cpuAfter = procCpuMs(serverPid);
  const cpuMs =
    cpuBefore && cpuAfter
      ? cpuAfter.userMs + cpuAfter.systemMs - cpuBefore.userMs - cpuBefore.systemMs
      : Number.NaN;
  return {
    requests_per_s: round(result.requests.average, 0),
    requests: result.requests.total,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non_2xx: result.non2xx,
    cpu_us_per_request: result.requests.total > 0 ? round((cpuMs * 1000) / result.requests.total, 1) : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The bare server: this file again with `--bare <payload.json>`, in a child process.
// ---------------------------------------------------------------------------------------------

interface BareProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function startBare(payloadPath: string): Promise<BareProcess> {
  const self = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), self, '--bare', payloadPath],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const found = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code, signal) => reject(new Error(`bare server exited (${code ?? signal})`)));
  });
  return {
    url,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      process.off('exit', killOnExit);
    },
  };
}

/** The part of Fastify the bare server uses (loaded by path, from where Ferry loads it). */
interface BareApp {
  get(path: string, handler: (request: unknown, reply: BareReply) => Promise<unknown>): void;
  listen(options: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}
interface BareReply {
  type(contentType: string): { send(body: Buffer): unknown };
}

async function serveBare(payloadPath: string): Promise<void> {
  const module = (await import(pathToFileURL(ferryRequire.resolve('fastify')).href)) as {
    default: (options: { logger: boolean }) => BareApp;
  };
  const Fastify = module.default;
  const payload = JSON.parse(readFileSync(payloadPath, 'utf8')) as BarePayload;
  const app = Fastify({ logger: false });
  for (const route of payload.routes) {
    const pathname = route.path.split('?')[0] as string;
    if (route.base64 !== undefined) {
      const bytes = Buffer.from(route.base64, 'base64');
      app.get(pathname, async (_request, reply) => reply.type('application/octet-stream').send(bytes));
    } else {
      const body = route.json;
      app.get(pathname, async () => body);
    }
  }
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  console.log(`bare Fastify listening on ${url}`);
}

// Last: every constant above is initialised by now.
if (process.argv[2] === '--bare') {
  await serveBare(process.argv[3] as string);
} else {
  await main();
}
