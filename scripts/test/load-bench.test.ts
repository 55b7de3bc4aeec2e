// bench/load.ts in its smoke size, run as `npm run bench -- load` runs it (scripts/bench.mjs): two
// Ferry processes on one PostgreSQL schema, s3rver and Redis prefix, then one, 3 users x 2 calls.
// The benchmark's own checks (every output listed on every instance with the reference SHA-256,
// nothing in another user's listing, every call followed to its end on the other instance) must
// hold, and its report must carry what the issue asks for.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const USERS = 3;
const CALLS = 2;
const PHASES = [
  'auth',
  'upload',
  'call_start',
  'call_cold',
  'call',
  'outcome',
  'verify_list',
  'verify_content',
];

interface Summary {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

interface SetupReport {
  instances: number;
  calls_ok: number;
  calls_per_s: number;
  wall_s: number;
  phases: Record<string, Summary>;
  errors: number;
  error_samples: string[];
  lost: number;
  misrouted: number;
}

interface LoadReport {
  bench: string;
  pass: boolean;
  error?: string;
  errors: number;
  lost: number;
  misrouted: number;
  throughput_ratio: number | null;
  two_instances: SetupReport;
  one_instance: SetupReport;
}

/** Runs the bench to its end (bounded by BENCH_TIMEOUT_S and a kill here): exit code and output. */
function runBench(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'bench.mjs'), 'load'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_LOAD_USERS: String(USERS),
        BENCH_LOAD_CALLS: String(CALLS),
        BENCH_LOAD_CONCURRENCY: String(USERS),
        BENCH_TIMEOUT_S: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-8000);
    });
    // The bench's own deadline fires first; this only guards against a wedged runner.
    const kill = setTimeout(() => child.kill('SIGKILL'), 230_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('bench/load.ts (smoke size)', () => {
  it('runs both setups without an error, a lost or a misrouted file, and reports every phase', async () => {
    const run = await runBench();
    const reports = JSON.parse(run.stdout) as LoadReport[];
    const report = reports[0] as LoadReport;
    expect(report.error, run.stderr).toBeUndefined();
    expect(report.bench).toBe('load');
    for (const setup of [report.two_instances, report.one_instance]) {
      expect(setup.error_samples).toEqual([]);
      expect(setup).toMatchObject({ errors: 0, lost: 0, misrouted: 0, calls_ok: USERS * CALLS });
      expect(setup.calls_per_s).toBeGreaterThan(0);
      expect(Object.keys(setup.phases).sort()).toEqual([...PHASES].sort());
      for (const phase of PHASES) {
        const summary = setup.phases[phase] as Summary;
        expect(summary.p50_ms, phase).toBeLessThanOrEqual(summary.p95_ms);
        expect(summary.p95_ms, phase).toBeLessThanOrEqual(summary.p99_ms);
      }
      // Every call is timed once: the first on each instance (its MCP server starts) apart.
      const cold = setup.phases.call_cold?.count ?? 0;
      expect(cold).toBe(USERS * Math.min(CALLS, setup.instances));
      expect(cold + (setup.phases.call?.count ?? 0)).toBe(USERS * CALLS);
      for (const phase of ['call_start', 'outcome', 'verify_content'])
        expect(setup.phases[phase]?.count, phase).toBe(USERS * CALLS);
      expect(setup.phases.upload?.count).toBe(USERS);
      expect(setup.phases.auth?.count).toBe(USERS * setup.instances);
    }
    expect(report.two_instances.instances).toBe(2);
    expect(report.one_instance.instances).toBe(1);
    expect(report).toMatchObject({ errors: 0, lost: 0, misrouted: 0, pass: true });
    expect(report.throughput_ratio).toBeGreaterThan(0);
    expect(run.code).toBe(0);
  }, 240_000);
});
