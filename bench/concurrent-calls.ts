// Concurrent-calls benchmark: BENCH_USERS (default 50) users at once, each making
// BENCH_CALLS_PER_USER (default 10) calls one after another; a call = upload a 1 MiB file
// (BENCH_CALL_FILE_KIB) + start the inject example's `analyze_document` on it + follow its events
// to the end + fetch the outcome. Ferry runs in a child process in proxy auth mode; every user is
// its own X-Forwarded-User from loopback. A user never has more than one call running, well under
// calls.maxRunningPerUser (8 by default; more would be refused with 429).
// Checked: 0 errors; each outcome's SHA-256 (computed by the tool from the bytes it was given)
// equals the uploaded file's; each user's file list holds only their files and every upload and
// output of theirs; a user cannot read another user's output or call (404). Reported: p50/p95/p99
// of upload, call and upload+call latency (first call per user, which starts that user's MCP
// server, apart), wall time, MCP server processes per user, CPU time of Ferry, the servers and
// this client, Ferry's RSS. BENCH_SANDBOX=off|auto|required overrides the server's sandbox mode;
// BENCH_STARTS=N sets calls.maxConcurrentStarts; BENCH_WARM=1 starts every server before the
// clock; BENCH_DETECTION=watch|walk sets calls.workspaceDetection; BENCH_SEED_FILES=N puts N small
// files into each user's workspace after their first call (what a walk has to list on every later
// call). Bounded by BENCH_TIMEOUT_S (default 600) for the whole run and 120 s of silence per
// request. Prints one JSON document.
import { createCipheriv, createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseStream } from '../apps/ferry/src/cli/sse-reader.js';
import {
  benchCommand,
  descendantsOf,
  endBench,
  type FerryProcess,
  latencySummary,
  MIB,
  machineReport,
  median,
  procCpuMs,
  procMemory,
  procPss,
  REPO_ROOT,
  round,
  sampleProcessRss,
  startFerryProcess,
} from './_measure.js';

/** What the proxy in front of Ferry adds (auth.proxySecret); the benchmark plays that proxy. */
const PROXY_SECRET = 'bench-proxy-secret-0123456789';
const USERS = Number(process.env.BENCH_USERS ?? 50);
const CALLS_PER_USER = Number(process.env.BENCH_CALLS_PER_USER ?? 10);
const FILE_BYTES = Number(process.env.BENCH_CALL_FILE_KIB ?? 1024) * 1024;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;
const REQUEST_TIMEOUT_MS = 120_000;
const SERVER = 'inject';
const TOOL = 'analyze_document';
const USER_ENV = 'FERRY_BENCH_USER';
/**
 * BENCH_WARM=1: start every user's MCP server before the clock starts (listing its tools, 4 users
 * at a time), to measure the steady state apart from 50 server start-ups at once.
 */
const WARM = process.env.BENCH_WARM === '1';
const WARM_PARALLEL = 4;
/** The inject server's `sandbox` setting (off | auto | required); unset: as in ferry.config.json. */
const SANDBOX = process.env.BENCH_SANDBOX;
/** calls.maxConcurrentStarts (local servers starting at once); unset: Ferry's default, the CPU count. */
const STARTS = process.env.BENCH_STARTS === undefined ? undefined : Number(process.env.BENCH_STARTS);
/** How Ferry finds files tools wrote (calls.workspaceDetection); unset: Ferry's default. */
const DETECTION = process.env.BENCH_DETECTION;
if (DETECTION !== undefined && DETECTION !== 'watch' && DETECTION !== 'walk') {
  throw new Error(`BENCH_DETECTION must be watch or walk, not ${JSON.stringify(DETECTION)}`);
}
const SEED_FILES = Number(process.env.BENCH_SEED_FILES ?? 0);
/** Seed files per directory: a workspace of nested folders, as tools leave them. */
const SEED_PER_DIR = 100;
/** How long the servers sit idle before their idle memory is read: server-kit's 1 s + margin. */
const IDLE_SETTLE_MS = 3000;

interface CallSample {
  user: number;
  call: number;
  uploadMs: number;
  callMs: number;
}

interface UserResult {
  outputs: { id: string; name: string }[];
  callIds: string[];
  uploads: string[];
}

/** Failed calls (upload, start, events, outcome, checks of the outcome). */
const errors: string[] = [];
/** Failed isolation checks after the calls. */
const isolationErrors: string[] = [];
const samples: CallSample[] = [];
let ferry: FerryProcess | undefined;
/** Other work on the machine skews every timing here; reported next to them. */
const loadAtStart = loadavg()[0] ?? 0;
const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-calls-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}
const deadline = setTimeout(() => {
  fail(
    new Error(
      `global timeout: ${samples.length} of ${USERS * CALLS_PER_USER} calls done after ${TIMEOUT_MS / 1000} s (BENCH_TIMEOUT_S)`,
    ),
  );
}, TIMEOUT_MS);
deadline.unref();

try {
  const examples = JSON.parse(await readFile(join(REPO_ROOT, 'ferry.config.json'), 'utf8')) as {
    servers: Record<string, Record<string, unknown>>;
  };
  const inject = examples.servers[SERVER];
  if (!inject) throw new Error(`ferry.config.json has no "${SERVER}" server`);
  ferry = await startFerryProcess({
    dir,
    config: {
      auth: {
        mode: 'proxy',
        header: 'x-forwarded-user',
        trustedProxies: ['127.0.0.1', '::1'],
        proxySecret: PROXY_SECRET,
      },
      // Said out loud: the benchmark relies on it (one running call per user < 8).
      calls: {
        maxRunningPerUser: 8,
        maxKeptCalls: Math.max(1000, USERS * CALLS_PER_USER),
        ...(DETECTION === undefined ? {} : { workspaceDetection: DETECTION }),
        ...(STARTS === undefined ? {} : { maxConcurrentStarts: STARTS }),
      },
      storage: { dataDir: join(dir, 'ferry') },
      // The user in the server's environment lets the benchmark tell whose process is whose.
      servers: {
        [SERVER]: {
          ...inject,
          cwd: REPO_ROOT,
          env: { [USER_ENV]: '{{user}}' },
          ...(SANDBOX === undefined ? {} : { sandbox: SANDBOX }),
        },
      },
    },
  });
  const api = createApi(ferry.url);

  // Proxy mode holds: no header, or a header that is not a username, is 401.
  const anonymous = await api.send('GET', '/api/files', undefined);
  const badName = await api.send('GET', '/api/files', 'not a/user');
  if (anonymous.status !== 401 || badName.status !== 401) {
    throw new Error(`proxy auth not in force: ${anonymous.status} / ${badName.status} instead of 401`);
  }

  // The floor, same run, before Ferry's load: the same server command started USERS times at
  // once, directly (no Ferry, no sandbox), each until its tool list answers.
  const floor = await directStarts(inject, USERS);

  const servers = watchServerProcesses(ferry.pid);
  let warmMs = 0;
  if (WARM) {
    const warmStart = process.hrtime.bigint();
    let next = 0;
    const worker = async () => {
      for (let user = next++; user < USERS; user = next++) {
        const listed = await api.send('GET', `/api/servers/${SERVER}/tools`, userName(user));
        if (listed.status !== 200)
          throw new Error(`warm-up of ${userName(user)}: ${listed.status} ${listed.text}`);
      }
    };
    await Promise.all(Array.from({ length: WARM_PARALLEL }, worker));
    warmMs = Number(process.hrtime.bigint() - warmStart) / 1e6;
  }

  const serverCpuBefore = servers.cpuMs();
  const ferryRss = sampleProcessRss(ferry.pid, 100);
  const ferryCpuBefore = cpuMs(ferry.pid);
  const clientCpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: USERS }, (_, user) => runUser(api, user)));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const memory = ferryRss.stop();
  const processes = servers.stop();
  // Every call has ended: what each user's server holds now, and again once it has been idle
  // long enough for its idle collection (server-kit collects after 1 s of quiet on the wire).
  const afterCalls = idleServers(processes.pidsByUser);
  await delay(IDLE_SETTLE_MS);
  const idle = idleServers(processes.pidsByUser);
  const ferryCpu = cpuMs(ferry.pid) - ferryCpuBefore;
  const clientCpu = process.cpuUsage(clientCpuBefore);

  await checkIsolation(api, results);

  const first = samples.filter((s) => s.call === 0);
  const later = samples.filter((s) => s.call > 0);
  const perUser = Object.values(processes.pidsByUser).map((pids) => pids.size);
  const expected = USERS * CALLS_PER_USER;
  const pass = errors.length === 0 && isolationErrors.length === 0 && samples.length === expected;
  console.log(
    JSON.stringify({
      bench: 'concurrent-calls',
      command: command(),
      users: USERS,
      calls_per_user: CALLS_PER_USER,
      file_bytes: FILE_BYTES,
      tool: `${SERVER}/${TOOL} (file-injection pattern: the host sends the file as base64)`,
      calls_ok: samples.length,
      calls_expected: expected,
      errors: errors.length,
      error_kinds: errorKinds(errors),
      error_samples: errors.slice(0, 6),
      isolation_errors: isolationErrors.length,
      isolation_error_samples: isolationErrors.slice(0, 6),
      sandbox: SANDBOX ?? 'as in ferry.config.json',
      workspace_detection: DETECTION ?? 'default',
      seed_files_per_workspace: SEED_FILES,
      servers_warmed_first: WARM,
      ...(WARM ? { warm_up_s: round(warmMs / 1000, 1) } : {}),
      wall_s: round(wallMs / 1000, 2),
      calls_per_s: round(samples.length / (wallMs / 1000), 2),
      // Where the CPU went during the calls (the machine has cpus().length cores for all of it).
      cpu_s: {
        ferry: round(ferryCpu / 1000, 1),
        mcp_servers: round((processes.serverCpuMs - serverCpuBefore) / 1000, 1),
        bench_client: round((clientCpu.user + clientCpu.system) / 1e6, 1),
      },
      upload: latencySummary(samples.map((s) => s.uploadMs)),
      call: latencySummary(samples.map((s) => s.callMs)),
      upload_plus_call: latencySummary(samples.map((s) => s.uploadMs + s.callMs)),
      call_first_per_user: latencySummary(first.map((s) => s.callMs)),
      // The same server started BENCH_USERS times at once without Ferry: spawn → tools/list answered.
      floor_direct_starts: floor,
      call_after_first: latencySummary(later.map((s) => s.callMs)),
      server_processes: {
        spawned_total: processes.spawned,
        users_with_a_process: perUser.length,
        per_user_min: perUser.length ? Math.min(...perUser) : 0,
        per_user_max: perUser.length ? Math.max(...perUser) : 0,
        max_alive_at_once: processes.maxAlive,
        // Everything below Ferry at the busiest sample, wrappers included.
        peak_rss_sum_mib: round(processes.peakRssSum / MIB, 1),
        unattributed: processes.unattributed,
        // Other processes below Ferry (sandbox wrappers sh/bwrap/prlimit/sleep, esbuild of tsx).
        helper_processes_seen: processes.wrappers,
        helper_commands: processes.wrapperNames,
        // Each user's server processes (with their sandbox wrappers) as the last call ended…
        rss_per_user_after_calls_mib: spread(afterCalls.rssPerUser.map((bytes) => bytes / MIB)),
        // …and IDLE_SETTLE_MS later, idle.
        idle_after_ms: IDLE_SETTLE_MS,
        idle_rss_per_user_mib: spread(idle.rssPerUser.map((bytes) => bytes / MIB)),
        idle_pss_per_user_mib: spread(idle.pssPerUser.map((bytes) => bytes / MIB)),
        // CPU of one server process over its life here: its start and the user's calls to it.
        cpu_ms_per_process: spread(idle.cpuPerProcess),
      },
      ferry_rss_mib: {
        baseline: round(memory.baselineBytes / MIB, 1),
        peak: round(Math.max(memory.sampledPeakBytes, memory.hwmBytes) / MIB, 1),
      },
      isolation_checked: true,
      ...(pass ? {} : { server_output_tail: ferry.outputTail().slice(-3000) }),
      machine: machineReport(loadAtStart),
      target: { errors: 0, call_first_per_user_p95_ms: 2000, idle_rss_per_user_mib: 60 },
      meets: {
        call_first_per_user_p95: latencySummary(first.map((s) => s.callMs)).p95_ms <= 2000,
        idle_rss_per_user: Math.max(0, ...idle.rssPerUser) / MIB <= 60,
      },
      pass,
    }),
  );
  if (!pass) process.exitCode = 1;
} catch (error) {
  fail(error);
} finally {
  await endBench(deadline, ferry, dir);
}

/** One user: CALLS_PER_USER calls in a row, each upload → start → events → outcome. */
async function runUser(api: Api, user: number): Promise<UserResult> {
  const name = userName(user);
  const result: UserResult = { outputs: [], callIds: [], uploads: [] };
  for (let call = 0; call < CALLS_PER_USER; call++) {
    const fileName = `${name}-c${String(call).padStart(2, '0')}.bin`;
    try {
      const bytes = fileBytes(user, call);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const t0 = process.hrtime.bigint();
      const uploaded = await api.send('POST', `/api/files?name=${fileName}`, name, bytes);
      if (uploaded.status !== 201)
        throw new Error(`upload ${uploaded.status}: ${uploaded.text.slice(0, 300)}`);
      result.uploads.push(fileName);
      const t1 = process.hrtime.bigint();
      const startCall = await api.send(
        'POST',
        '/api/calls',
        name,
        JSON.stringify({
          server: SERVER,
          tool: TOOL,
          arguments: { instructions: 'bench', filename: fileName },
        }),
      );
      if (startCall.status !== 202)
        throw new Error(`start ${startCall.status}: ${startCall.text.slice(0, 300)}`);
      const { callId } = JSON.parse(startCall.text) as { callId: string };
      result.callIds.push(callId);
      const events = await api.events(callId, name);
      const detail = await api.send('GET', `/api/calls/${callId}`, name);
      const t2 = process.hrtime.bigint();
      const outcome = JSON.parse(detail.text) as CallDetail;
      if (outcome.status !== 'finished' || outcome.response?.forModel.isError) {
        throw new Error(
          // The UI's envelope carries the cause (meta_data.details) that the model's copy leaves out.
          `call ${outcome.status}: ${JSON.stringify(outcome.response?.forUi.error ?? outcome.response?.forModel).slice(0, 400)}`,
        );
      }
      if (!events.includes('finished')) throw new Error(`no finished event: ${events.join(',')}`);
      const seen = outcome.response?.forModel.results?.metrics?.sha256;
      if (seen !== sha256) throw new Error(`the tool saw sha256 ${seen}, uploaded ${sha256}`);
      const outputs = outcome.response?.forUi.files ?? [];
      const expectedOutput = `analysis_${fileName.replace(/\.bin$/, '')}.md`;
      if (outputs.length !== 1 || outputs[0]?.name !== expectedOutput) {
        throw new Error(`outputs ${JSON.stringify(outputs.map((f) => f.name))}, expected ${expectedOutput}`);
      }
      result.outputs.push({ id: outputs[0].id, name: outputs[0].name });
      samples.push({
        user,
        call,
        uploadMs: Number(t1 - t0) / 1e6,
        callMs: Number(t2 - t1) / 1e6,
      });
      if (call === 0 && SEED_FILES > 0) await seedWorkspace(name);
    } catch (error) {
      errors.push(`${fileName}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return result;
}

/**
 * Every user's files are theirs only and include each upload and output (so nothing landed with
 * another user), an output's content names the user's own file, and another user's output and
 * call answer 404.
 */
async function checkIsolation(api: Api, results: UserResult[]): Promise<void> {
  for (const [user, result] of results.entries()) {
    const name = userName(user);
    const listed = await api.send('GET', '/api/files?limit=200', name);
    const names = (JSON.parse(listed.text) as { items: { name: string }[] }).items.map((f) => f.name);
    // Every file is this user's (its name carries the user), and every upload and output is there.
    const foreign = names.filter((file) => !file.includes(`${name}-c`));
    const missing = [...result.uploads, ...result.outputs.map((o) => o.name)].filter(
      (f) => !names.includes(f),
    );
    if (foreign.length > 0 || missing.length > 0) {
      isolationErrors.push(
        `${name}: foreign files ${JSON.stringify(foreign)}, missing ${JSON.stringify(missing)}`,
      );
    }
    const own = result.outputs[0];
    if (own) {
      const content = await api.send('GET', `/api/files/${own.id}/content`, name);
      if (content.status !== 200 || !content.text.includes(`# Analysis of ${name}-c`)) {
        isolationErrors.push(`${name}: own output ${content.status}, content ${content.text.slice(0, 100)}`);
      }
    }
    const other = results[(user + 1) % results.length];
    const otherOutput = other?.outputs[0];
    const otherCall = other?.callIds[0];
    if (results.length > 1 && otherOutput && otherCall) {
      for (const path of [`/api/files/${otherOutput.id}/content`, `/api/calls/${otherCall}`]) {
        const peek = await api.send('GET', path, name);
        if (peek.status !== 404) isolationErrors.push(`${name} read another user's ${path}: ${peek.status}`);
      }
    }
  }
}

interface CallDetail {
  status: string;
  response: {
    forModel: { isError: boolean; results?: { metrics?: { sha256?: string } } };
    forUi: { files: { id: string; name: string }[]; error?: unknown };
  } | null;
}

interface Api {
  send(
    method: string,
    path: string,
    user: string | undefined,
    body?: string | Buffer,
  ): Promise<{ status: number; text: string }>;
  /** Follows the call's event stream to its end; the event types seen. */
  events(callId: string, user: string): Promise<string[]>;
}

function createApi(base: string): Api {
  const open = (method: string, path: string, user: string | undefined, body?: string | Buffer) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (user !== undefined) {
        headers['x-forwarded-user'] = user;
        headers['x-ferry-proxy-secret'] = PROXY_SECRET;
        headers['x-ferry-session'] = `session-${user}`;
      }
      if (body !== undefined) {
        headers['content-type'] = typeof body === 'string' ? 'application/json' : 'application/octet-stream';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const req = request(new URL(path, base), { method, headers }, resolve);
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    async send(method, path, user, body) {
      const res = await open(method, path, user, body);
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
    },
    async events(callId, user) {
      const res = await open('GET', `/api/calls/${callId}/events`, user);
      const types: string[] = [];
      if (res.statusCode === 204) {
        res.resume();
        return types;
      }
      if (res.statusCode !== 200) throw new Error(`events ${res.statusCode}`);
      await parseStream(res, (event) => types.push(event.event));
      return types;
    },
  };
}

/**
 * The MCP server processes under Ferry, scanned every 200 ms. Local servers may sit under sandbox
 * wrappers (sh, bwrap, prlimit), so the whole process tree below Ferry is walked; a server is a
 * `node` process in it, attributed to a user through the FERRY_BENCH_USER the launcher filled in
 * from the config's `{{user}}`. Wrappers are counted apart.
 */
function watchServerProcesses(ferryPid: number) {
  const pidsByUser: Record<string, Set<number>> = {};
  const seen = new Set<number>();
  const wrappers = new Set<number>();
  const wrapperNames = new Set<string>();
  let maxAlive = 0;
  let peakRssSum = 0;
  /** Server processes not (yet) attributed to a user. */
  const unattributedPids = new Set<number>();
  /** The newest CPU time seen of each server process (processes that exited keep their last). */
  const serverCpu = new Map<number, number>();
  const descendants = (): number[] => descendantsOf(ferryPid);
  const scan = () => {
    let alive = 0;
    let rssSum = 0;
    for (const pid of descendants()) {
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      rssSum += procMemory(pid)?.rss ?? 0;
      if (comm !== 'node') {
        wrappers.add(pid);
        wrapperNames.add(comm);
        continue;
      }
      alive += 1;
      serverCpu.set(pid, cpuMs(pid) || (serverCpu.get(pid) ?? 0));
      if (seen.has(pid)) continue;
      // Read again on later scans until it names its user: a process seen between fork and exec
      // still has its launcher's environment.
      let user: string | undefined;
      try {
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        user = env.find((line) => line.startsWith(`${USER_ENV}=`))?.slice(USER_ENV.length + 1);
      } catch {
        user = undefined;
      }
      if (user === undefined) {
        unattributedPids.add(pid);
        continue;
      }
      seen.add(pid);
      unattributedPids.delete(pid);
      const pids = pidsByUser[user] ?? new Set<number>();
      pids.add(pid);
      pidsByUser[user] = pids;
    }
    maxAlive = Math.max(maxAlive, alive);
    peakRssSum = Math.max(peakRssSum, rssSum);
  };
  const timer = setInterval(scan, 200);
  const cpuTotal = () => [...serverCpu.values()].reduce((sum, ms) => sum + ms, 0);
  return {
    /** CPU time of every server process so far (a fresh scan). */
    cpuMs() {
      scan();
      return cpuTotal();
    },
    stop() {
      clearInterval(timer);
      scan();
      return {
        pidsByUser,
        spawned: seen.size + unattributedPids.size,
        maxAlive,
        peakRssSum,
        unattributed: unattributedPids.size,
        serverCpuMs: cpuTotal(),
        wrappers: wrappers.size,
        wrapperNames: [...wrapperNames].sort(),
      };
    },
  };
}

/**
 * `count` copies of a configured stdio server started at once over the SDK's stdio transport,
 * unsandboxed: how long until each lists its tools, and the CPU each used by then.
 */
async function directStarts(server: Record<string, unknown>, count: number) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const times: number[] = [];
  const cpu: number[] = [];
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const transport = new StdioClientTransport({
        command: server.command as string,
        args: server.args as string[],
        cwd: REPO_ROOT,
        stderr: 'ignore',
      });
      const client = new Client({ name: 'bench-floor', version: '0' });
      const t0 = process.hrtime.bigint();
      await client.connect(transport);
      await client.listTools();
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const pid = transport.pid;
      if (pid !== null) cpu.push(cpuMs(pid));
      await client.close();
    }),
  );
  return {
    starts: count,
    ready: latencySummary(times),
    wall_s: round(Number(process.hrtime.bigint() - started) / 1e9, 2),
    cpu_ms_per_start: spread(cpu),
  };
}

/** Count, median and largest of some values (not durations: RSS, CPU milliseconds). */
function spread(values: readonly number[]): { count: number; p50: number; max: number } {
  if (values.length === 0) return { count: 0, p50: 0, max: 0 };
  return { count: values.length, p50: round(median([...values]), 1), max: round(Math.max(...values), 1) };
}

/**
 * The live server processes of each user, summed per user: RSS, and PSS (smaps_rollup: pages
 * shared with other processes, such as node's own code, charged in shares, so the sum over users
 * is what the machine holds); and each process's CPU so far.
 */
function idleServers(pidsByUser: Record<string, Set<number>>): {
  rssPerUser: number[];
  pssPerUser: number[];
  cpuPerProcess: number[];
} {
  const rssPerUser: number[] = [];
  const pssPerUser: number[] = [];
  const cpuPerProcess: number[] = [];
  for (const pids of Object.values(pidsByUser)) {
    let rss = 0;
    let pss = 0;
    for (const pid of pids) {
      const memory = procMemory(pid);
      if (memory === undefined) continue;
      rss += memory.rss;
      pss += procPss(pid) ?? 0;
      cpuPerProcess.push(cpuMs(pid));
    }
    if (rss > 0) {
      rssPerUser.push(rss);
      pssPerUser.push(pss);
    }
  }
  return { rssPerUser, pssPerUser, cpuPerProcess };
}

/** Errors grouped by their message with ids, numbers and paths blanked: what went wrong, how often. */
function errorKinds(messages: readonly string[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const message of messages) {
    const kind = message
      .replace(/^[^:]+: /, '')
      .replace(/\/[\w./-]+/g, '<path>')
      .replace(/\d+/g, 'N')
      .slice(0, 160);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

function cpuMs(pid: number): number {
  const cpu = procCpuMs(pid);
  return cpu ? cpu.userMs + cpu.systemMs : 0;
}

function userName(user: number): string {
  return `bench-u${String(user).padStart(2, '0')}`;
}

/** Distinct, incompressible bytes per (user, call): AES-CTR keystream keyed by both. */
function fileBytes(user: number, call: number): Buffer {
  const key = Buffer.alloc(16);
  key.writeUInt32BE(user, 0);
  key.writeUInt32BE(call, 4);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(FILE_BYTES));
}

/**
 * SEED_FILES files of 1 KiB in folders of SEED_PER_DIR under the user's workspace, owned like the
 * workspace (the sandbox user when Ferry runs as root), so every later call's walk lists them.
 */
async function seedWorkspace(user: string): Promise<void> {
  const workspace = join(dir, 'ferry', 'workspaces', user);
  const owner = await stat(workspace);
  const content = Buffer.alloc(1024, 0x61);
  for (let i = 0; i < SEED_FILES; i++) {
    const folder = join(workspace, 'bench-seed', `d${Math.floor(i / SEED_PER_DIR)}`);
    if (i % SEED_PER_DIR === 0) {
      await mkdir(folder, { recursive: true });
      await chown(folder, owner.uid, owner.gid);
      await chown(join(workspace, 'bench-seed'), owner.uid, owner.gid);
    }
    const file = join(folder, `f${i}.txt`);
    await writeFile(file, content);
    await chown(file, owner.uid, owner.gid);
  }
}

function command(): string {
  return benchCommand('concurrent-calls', [
    'BENCH_DETECTION',
    'BENCH_SEED_FILES',
    'BENCH_USERS',
    'BENCH_CALLS_PER_USER',
    'BENCH_CALL_FILE_KIB',
    'BENCH_SANDBOX',
    'BENCH_STARTS',
    'BENCH_WARM',
    'BENCH_TIMEOUT_S',
  ]);
}

/** One JSON document with the reason, so scripts/bench.mjs reports it; then cleanup and exit 1. */
function fail(error: unknown): never {
  console.log(
    JSON.stringify({
      bench: 'concurrent-calls',
      command: command(),
      error: error instanceof Error ? error.message : String(error),
      calls_ok: samples.length,
      errors: errors.length,
      error_kinds: errorKinds(errors),
      error_samples: errors.slice(0, 6),
      isolation_errors: isolationErrors.length,
      server_output_tail: ferry?.outputTail().slice(-2000),
      pass: false,
    }),
  );
  process.exit(1);
}
