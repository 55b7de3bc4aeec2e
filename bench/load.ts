// Load benchmark of scale mode (issue 22): two Ferry instances sharing one PostgreSQL schema, one
// S3 bucket (s3rver on loopback) and one Redis prefix, then the same load on ONE instance with the
// same kind of parts (a fresh schema, S3 key prefix and Redis prefix), same run, for the ratio.
// Each instance is a child process (`ferry start`, as bench/concurrent-calls.ts runs it): two
// in-process apps would share one event loop and measure nothing about two instances.
//
// The load: BENCH_LOAD_USERS users (default 50), BENCH_LOAD_CONCURRENCY of them at once (default
// 10). A user is authenticated on every instance (GET /api/me, proxy auth), uploads one file of
// BENCH_LOAD_FILE_KIB (default 1024) random bytes through one instance, then makes
// BENCH_LOAD_CALLS calls (default 20) in a row to the inject example's `analyze_document` on it
// (it reads the file and writes analysis_<name>.md), alternating the instance that starts the call
// and following its events to the end on the OTHER instance (with one instance, the same one),
// where the outcome is read too: a call is only done when the instance that did not run it saw it.
// Verified afterwards on every instance: each user's My Files holds their upload and every output
// of their calls (every version, with the SHA-256 of the reference output: the same server run
// directly, outside Ferry, on the same bytes), each output's bytes downloaded through the instance
// that did not run its call hash to it; `lost` counts what is missing or wrong, `misrouted` a file
// in another user's listing. Reported per phase p50/p95/p99, errors (the first few messages),
// calls per second of each setup and their ratio. Fails (exit 1, `pass: false`) on any error, lost
// or misrouted file. Bounded by BENCH_TIMEOUT_S (default 900) and 120 s of silence per request.
// Smoke: BENCH_LOAD_USERS=3 BENCH_LOAD_CALLS=2 node scripts/bench.mjs load
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { createLoadApi, type LoadApi } from './_load-api.js';
import {
  benchCommand,
  benchScratch,
  type FerryProcess,
  failBench,
  latencySummary,
  machineReport,
  REPO_ROOT,
  round,
  startFerryProcess,
} from './_measure.js';

const PROXY_SECRET = 'bench-proxy-secret-0123456789';
const USERS = Number(process.env.BENCH_LOAD_USERS ?? 50);
const CALLS = Number(process.env.BENCH_LOAD_CALLS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 10);
const FILE_BYTES = Number(process.env.BENCH_LOAD_FILE_KIB ?? 1024) * 1024;
/** The inject server's `sandbox` setting (off | auto | required); unset: as in ferry.config.json. */
const SANDBOX = process.env.BENCH_SANDBOX;
const SERVER = 'inject';
const TOOL = 'analyze_document';
/** How many messages of each kind of problem the report quotes. */
const SAMPLES = 5;

for (const [name, value] of Object.entries({ USERS, CALLS, CONCURRENCY, FILE_BYTES })) {
  if (!Number.isInteger(value) || value < 1) {
    failBench('load', command(), new Error(`${name} must be a whole number >= 1, not ${value}`));
  }
}
// Two setups of 1000 calls each take a few minutes on 2 cores; a stuck one must not take forever.
process.env.BENCH_TIMEOUT_S ??= '900';

/** Everything one setup (two instances, or one) measured and found. */
interface RunResult {
  instances: number;
  wall_s: number;
  calls_ok: number;
  calls_per_s: number;
  phases: Record<Phase, ReturnType<typeof latencySummary>>;
  errors: number;
  error_kinds: Record<string, number>;
  error_samples: string[];
  lost: number;
  lost_samples: string[];
  misrouted: number;
  misrouted_samples: string[];
  /** Only when something went wrong: the last of what each instance logged (warnings and up). */
  server_log_tails?: string[];
}

/**
 * `call`: start to the end seen on the other instance, for calls after the user's first on the
 * instance running it; `call_cold`: those first calls, which also start the user's MCP server there.
 */
type Phase =
  | 'auth'
  | 'upload'
  | 'call_start'
  | 'call_cold'
  | 'call'
  | 'outcome'
  | 'verify_list'
  | 'verify_content';

interface UserPlan {
  name: string;
  input: string;
  bytes: Buffer;
  sha256: string;
  /** SHA-256 of the output the tool writes for this user's file, run directly (no Ferry). */
  outputSha256: string;
}

const loadAtStart = loadavg()[0] ?? 0;
const { dir, deadline } = await benchScratch('ferry-bench-load-', fail);
const running: FerryProcess[] = [];
const shared: { close(): Promise<void> }[] = [];
/** Set by the first `fail`: a second one (the deadline during cleanup) changes nothing. */
let failing = false;

try {
  const examples = JSON.parse(await readFile(join(REPO_ROOT, 'ferry.config.json'), 'utf8')) as {
    servers: Record<string, Record<string, unknown>>;
  };
  const inject = examples.servers[SERVER];
  if (!inject) throw new Error(`ferry.config.json has no "${SERVER}" server`);
  const server = { ...inject, cwd: REPO_ROOT, ...(SANDBOX === undefined ? {} : { sandbox: SANDBOX }) };

  const referenceStart = process.hrtime.bigint();
  const plans = await planUsers(server);
  const referenceS = Number(process.hrtime.bigint() - referenceStart) / 1e9;

  const s3 = await startS3Server();
  shared.push({ close: () => s3.stop() });
  const two = await runSetup('two', 2, s3, server, plans);
  const one = await runSetup('one', 1, s3, server, plans);

  const errors = two.errors + one.errors;
  const lost = two.lost + one.lost;
  const misrouted = two.misrouted + one.misrouted;
  const pass = errors === 0 && lost === 0 && misrouted === 0;
  console.log(
    JSON.stringify(
      {
        bench: 'load',
        command: command(),
        machine: machineReport(loadAtStart),
        load: {
          users: USERS,
          calls_per_user: CALLS,
          file_bytes: FILE_BYTES,
          concurrent_users: CONCURRENCY,
          server: `${SERVER}/${TOOL}`,
          instances: 'child processes (ferry start), one event loop each',
          shared: 'a fresh PostgreSQL schema and Redis prefix per setup; one s3rver, a key prefix per setup',
          order: 'two instances, then one (each setup stopped before the next starts)',
          reference_s: round(referenceS, 2),
        },
        two_instances: two,
        one_instance: one,
        throughput_ratio: one.calls_per_s > 0 ? round(two.calls_per_s / one.calls_per_s) : null,
        errors,
        lost,
        misrouted,
        pass,
      },
      null,
      2,
    ),
  );
  await cleanup();
  process.exit(pass ? 0 : 1);
} catch (error) {
  fail(error);
}

/**
 * Each user's file (random bytes) and the SHA-256 of the output the tool makes of it, from the
 * same server program run directly over stdio: the reference Ferry's stored outputs must match.
 */
async function planUsers(server: Record<string, unknown>): Promise<UserPlan[]> {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({
    command: server.command as string,
    args: server.args as string[],
    cwd: REPO_ROOT,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-load-reference', version: '0' });
  await client.connect(transport);
  try {
    const plans: UserPlan[] = [];
    for (let user = 0; user < USERS; user++) {
      const name = `load-u${String(user).padStart(3, '0')}`;
      const input = `${name}-input.bin`;
      const bytes = randomBytes(FILE_BYTES);
      const result = await client.callTool({
        name: TOOL,
        arguments: { ...callArguments(name, input), file_data_base64: bytes.toString('base64') },
      });
      const output = (result.structuredContent as { returned_file_base64?: string } | undefined)
        ?.returned_file_base64;
      if (typeof output !== 'string') throw new Error(`reference call for ${name}: no returned file`);
      plans.push({
        name,
        input,
        bytes,
        sha256: sha256Of(bytes),
        outputSha256: sha256Of(Buffer.from(output, 'base64')),
      });
    }
    return plans;
  } finally {
    await client.close();
  }
}

function callArguments(user: string, input: string) {
  return { instructions: `load test of ${user}`, filename: input };
}

/** One setup: fresh shared parts, `count` Ferry processes, the load, the checks, then all stopped. */
async function runSetup(
  label: string,
  count: number,
  s3: S3TestServer,
  server: Record<string, unknown>,
  plans: UserPlan[],
): Promise<RunResult> {
  const schema: TestSchema = await createTestSchema('ferry_bench_load');
  shared.push({ close: () => schema.drop() });
  const redis: TestRedis = await createTestRedis();
  shared.push({ close: () => redis.drop() });
  const storage = {
    catalog: { driver: 'postgres', url: schema.url, schema: schema.schema },
    blob: {
      driver: 's3',
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      prefix: `${label}/`,
      forcePathStyle: true,
      ...s3.credentials,
    },
    tokens: { keys: [{ id: 'load', secret: randomBytes(32).toString('hex') }] },
  };
  const instances: FerryProcess[] = [];
  for (let index = 0; index < count; index++) {
    const home = join(dir, `${label}-${index}`);
    await mkdir(home);
    const ferry = await startFerryProcess({
      dir: home,
      config: {
        auth: { mode: 'proxy', trustedProxies: ['127.0.0.1', '::1'], proxySecret: PROXY_SECRET },
        calls: { maxRunningPerUser: 8, maxKeptCalls: Math.max(1000, USERS * CALLS) },
        // Workspaces and the data-dir lock: one per instance, as on separate machines.
        storage: { ...storage, dataDir: join(home, 'data') },
        redis: { url: redis.url, prefix: redis.prefix },
        servers: { [SERVER]: server },
      },
    }).catch((error: unknown) => {
      throw new Error(`instance ${label}-${index}: ${messageOf(error)}`);
    });
    running.push(ferry);
    instances.push(ferry);
  }
  const apis = instances.map((ferry) => createLoadApi(ferry.url, PROXY_SECRET));
  const result = await runLoad(apis, plans);
  if (result.errors + result.lost + result.misrouted > 0) {
    result.server_log_tails = instances.map((ferry) => ferry.outputTail().slice(-3000));
  }
  for (const ferry of instances) {
    await ferry.stop();
    running.splice(running.indexOf(ferry), 1);
  }
  // This setup's rows and keys go now; the next setup starts from nothing of it.
  for (const part of shared.splice(-2).reverse()) await part.close();
  return result;
}

/** What each call left behind, for the checks. */
interface Output {
  user: number;
  id: string;
  ranOn: number;
}

async function runLoad(apis: LoadApi[], plans: UserPlan[]): Promise<RunResult> {
  const samples: Record<Phase, number[]> = {
    auth: [],
    upload: [],
    call_start: [],
    call_cold: [],
    call: [],
    outcome: [],
    verify_list: [],
    verify_content: [],
  };
  const errors: string[] = [];
  const lost: string[] = [];
  const misrouted: string[] = [];
  const outputs: Output[][] = plans.map(() => []);
  const timed = async <T>(phase: Phase, work: () => Promise<T>): Promise<T> => {
    const t0 = process.hrtime.bigint();
    const value = await work();
    samples[phase].push(Number(process.hrtime.bigint() - t0) / 1e6);
    return value;
  };
  const instanceOf = (user: number, step: number) => (user + step) % apis.length;

  async function runUser(user: number): Promise<void> {
    const plan = plans[user] as UserPlan;
    for (const api of apis) {
      const me = await timed('auth', () => api.send('GET', '/api/me', plan.name));
      if (me.status !== 200) throw new Error(`GET /api/me ${me.status}: ${me.text.slice(0, 200)}`);
    }
    const home = apis[instanceOf(user, 0)] as LoadApi;
    const uploaded = await timed('upload', () =>
      home.send('POST', `/api/files?name=${plan.input}`, plan.name, plan.bytes),
    );
    if (uploaded.status !== 201) throw new Error(`upload ${uploaded.status}: ${uploaded.text.slice(0, 200)}`);
    const stored = (JSON.parse(uploaded.text) as { files: FileItem[] }).files;
    if (stored.length !== 1 || stored[0]?.sha256 !== plan.sha256) {
      throw new Error(
        `upload stored ${JSON.stringify(stored.map((f) => f.sha256))}, sent sha256 ${plan.sha256}`,
      );
    }
    for (let call = 0; call < CALLS; call++) {
      try {
        outputs[user]?.push(await runCall(user, call));
      } catch (error) {
        errors.push(`${plan.name} call ${call}: ${messageOf(error)}`);
      }
    }
  }

  /** Starts a call on one instance, follows it to its end on the other and reads its outcome there. */
  async function runCall(user: number, call: number): Promise<Output> {
    const plan = plans[user] as UserPlan;
    const ranOn = instanceOf(user, call);
    const runner = apis[ranOn] as LoadApi;
    const watcher = apis[instanceOf(user, call + 1)] as LoadApi;
    const t0 = process.hrtime.bigint();
    const started = await timed('call_start', () =>
      runner.send(
        'POST',
        '/api/calls',
        plan.name,
        JSON.stringify({ server: SERVER, tool: TOOL, arguments: callArguments(plan.name, plan.input) }),
      ),
    );
    if (started.status !== 202) throw new Error(`start ${started.status}: ${started.text.slice(0, 300)}`);
    const { callId } = JSON.parse(started.text) as { callId: string };
    const events = await watcher.events(callId, plan.name);
    samples[call < apis.length ? 'call_cold' : 'call'].push(Number(process.hrtime.bigint() - t0) / 1e6);
    const detail = await timed('outcome', () => watcher.send('GET', `/api/calls/${callId}`, plan.name));
    if (detail.status !== 200) throw new Error(`outcome ${detail.status}: ${detail.text.slice(0, 300)}`);
    const outcome = JSON.parse(detail.text) as CallDetail;
    if (outcome.status !== 'finished' || outcome.response?.forModel.isError) {
      // The UI's envelope carries the cause (meta_data.details) that the model's copy leaves out.
      const cause = outcome.response?.forUi.error ?? outcome.response?.forModel;
      throw new Error(`call ${outcome.status} on instance ${ranOn}: ${JSON.stringify(cause).slice(0, 400)}`);
    }
    if (events.at(-1) !== 'finished') throw new Error(`events on the other instance: ${events.join(',')}`);
    const seen = outcome.response?.forModel.results?.metrics?.sha256;
    if (seen !== plan.sha256) throw new Error(`the tool saw sha256 ${seen}, uploaded ${plan.sha256}`);
    const files = outcome.response?.forUi.files ?? [];
    if (files.length !== 1 || files[0]?.name !== outputName(plan)) {
      throw new Error(`outputs ${JSON.stringify(files.map((f) => f.name))}, expected ${outputName(plan)}`);
    }
    return { user, id: files[0].id, ranOn };
  }

  /** Every user's files on every instance: theirs only, every output there with the reference bytes. */
  async function verifyUser(user: number, owners: Map<string, number>): Promise<void> {
    const plan = plans[user] as UserPlan;
    const expected = outputs[user] ?? [];
    for (const [index, api] of apis.entries()) {
      const where = `${plan.name} on instance ${index}`;
      const listed = await timed('verify_list', () => api.send('GET', '/api/files?limit=200', plan.name));
      if (listed.status !== 200) throw new Error(`${where}: list ${listed.status}`);
      const items = (JSON.parse(listed.text) as { items: FileItem[] }).items;
      const versions: FileItem[] = [];
      const latest = items.find((item) => item.name === outputName(plan));
      if (latest) {
        for (let offset = 0; ; offset += 100) {
          const page = await timed('verify_list', () =>
            api.send('GET', `/api/files/${latest.id}/versions?limit=100&offset=${offset}`, plan.name),
          );
          if (page.status !== 200) throw new Error(`${where}: versions ${page.status}`);
          const body = JSON.parse(page.text) as { items: FileItem[]; total: number };
          versions.push(...body.items);
          if (body.items.length === 0 || versions.length >= body.total) break;
        }
      }
      for (const item of [...items, ...versions]) {
        const owner = owners.get(item.id);
        const own = item.name === plan.input || item.name === outputName(plan);
        if ((owner !== undefined && owner !== user) || !own) {
          misrouted.push(
            `${where}: ${item.name} (${item.id}) of ${owner === undefined ? 'nobody known' : plans[owner]?.name}`,
          );
        }
      }
      const input = items.find((item) => item.name === plan.input);
      if (input?.sha256 !== plan.sha256)
        lost.push(`${where}: upload ${input ? `sha256 ${input.sha256}` : 'missing'}`);
      for (const output of expected) {
        const found = versions.find((item) => item.id === output.id);
        if (found?.sha256 !== plan.outputSha256) {
          lost.push(`${where}: output ${output.id} ${found ? `sha256 ${found.sha256}` : 'missing'}`);
        }
      }
    }
    // The bytes, through the instance that did not run the call (the blob came over S3).
    for (const output of expected) {
      const api = apis[(output.ranOn + 1) % apis.length] as LoadApi;
      const digest = await timed('verify_content', () =>
        api.digest(`/api/files/${output.id}/content`, plan.name),
      );
      if (digest.status !== 200 || digest.sha256 !== plan.outputSha256) {
        lost.push(`${plan.name}: content of ${output.id}: ${digest.status} sha256 ${digest.sha256}`);
      }
    }
  }

  const start = process.hrtime.bigint();
  await pool(USERS, async (user) => {
    try {
      await runUser(user);
    } catch (error) {
      errors.push(`${plans[user]?.name}: ${messageOf(error)}`);
    }
  });
  const wallS = Number(process.hrtime.bigint() - start) / 1e9;
  const owners = new Map<string, number>();
  for (const [user, list] of outputs.entries()) for (const output of list) owners.set(output.id, user);
  await pool(USERS, async (user) => {
    try {
      await verifyUser(user, owners);
    } catch (error) {
      errors.push(`verify ${plans[user]?.name}: ${messageOf(error)}`);
    }
  });
  const callsOk = outputs.reduce((sum, list) => sum + list.length, 0);
  return {
    instances: apis.length,
    wall_s: round(wallS, 2),
    calls_ok: callsOk,
    calls_per_s: round(callsOk / wallS),
    phases: Object.fromEntries(
      Object.entries(samples).map(([phase, values]) => [phase, latencySummary(values)]),
    ) as RunResult['phases'],
    errors: errors.length,
    error_kinds: errorKinds(errors),
    error_samples: errors.slice(0, SAMPLES),
    lost: lost.length,
    lost_samples: lost.slice(0, SAMPLES),
    misrouted: misrouted.length,
    misrouted_samples: misrouted.slice(0, SAMPLES),
  };
}

interface FileItem {
  id: string;
  name: string;
  sha256: string;
}

interface CallDetail {
  status: string;
  response: {
    forModel: { isError: boolean; results?: { metrics?: { sha256?: string } } };
    forUi: { files: { id: string; name: string }[]; error?: unknown };
  } | null;
}

function outputName(plan: UserPlan): string {
  return `analysis_${plan.input.replace(/\.bin$/, '')}.md`;
}

/** Runs `work(0 … count-1)`, CONCURRENCY at a time. */
async function pool(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) await work(index);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

/** Errors grouped by message, with user, ids and numbers blanked: what went wrong, how often. */
function errorKinds(messages: readonly string[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const message of messages) {
    const kind = message
      .replace(/^[^:]+: /, '')
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
      .replace(/\d+/g, 'N')
      .slice(0, 200);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function cleanup(): Promise<void> {
  clearTimeout(deadline);
  for (const ferry of running.splice(0)) await ferry.stop().catch(() => undefined);
  for (const part of shared.splice(0).reverse()) await part.close().catch(() => undefined);
}

function command(): string {
  return benchCommand('load', [
    'BENCH_LOAD_USERS',
    'BENCH_LOAD_CALLS',
    'BENCH_LOAD_CONCURRENCY',
    'BENCH_LOAD_FILE_KIB',
    'BENCH_SANDBOX',
    'BENCH_TIMEOUT_S',
  ]);
}

/**
 * One JSON document with the reason, so scripts/bench.mjs reports it; then everything this bench
 * started is stopped (Ferry processes, schemas, Redis keys, s3rver: at most 10 s) and it exits 1.
 * Whatever else still runs meanwhile ends with the process.
 */
function fail(error: unknown): never {
  if (!failing) {
    failing = true;
    const tails = running.map((ferry) => ferry.outputTail().slice(-1500));
    console.log(
      JSON.stringify({
        bench: 'load',
        command: command(),
        error: messageOf(error),
        server_output_tails: tails,
        pass: false,
      }),
    );
    const exit = setTimeout(() => process.exit(1), 10_000);
    void cleanup().finally(() => {
      clearTimeout(exit);
      process.exit(1);
    });
  }
  return undefined as never;
}
