// Workspace detection, end to end: the change tracker ('watch', ~1,100 lines on inotify) against
// the walk before and after each call ('walk', ~90 lines), measured in the same run by the
// concurrent-calls benchmark (real Ferry, real example server, BENCH_USERS users × BENCH_CALLS_PER_USER
// calls), once with empty workspaces and once with BENCH_SEED_FILES files in each (what a walk lists
// on every call). The methods alternate within each of BENCH_ROUNDS rounds so drift hits both.
// Reported per method and workspace size: the median over rounds of the call latency p50/p95,
// calls per second and Ferry's CPU seconds; then walk ÷ watch for each. Prints one JSON document.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { benchCommand, type LatencySummary, median, REPO_ROOT, round } from './_measure.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USERS = process.env.BENCH_USERS ?? '20';
const CALLS_PER_USER = process.env.BENCH_CALLS_PER_USER ?? '10';
const SEEDED = Number(process.env.BENCH_SEED_FILES ?? 2000);
const METHODS = ['watch', 'walk'] as const;

interface RunSummary {
  call_p50_ms: number;
  call_p95_ms: number;
  calls_per_s: number;
  ferry_cpu_s: number;
}

interface ConcurrentCalls {
  pass: boolean;
  error?: string;
  calls_per_s: number;
  call_after_first: LatencySummary;
  cpu_s: { ferry: number };
}

function runOnce(method: (typeof METHODS)[number], seed: number): RunSummary {
  const run = spawnSync(
    join(REPO_ROOT, 'node_modules/.bin/tsx'),
    ['--conditions=ferry-source', join(REPO_ROOT, 'bench/concurrent-calls.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        BENCH_DETECTION: method,
        BENCH_SEED_FILES: String(seed),
        BENCH_USERS: USERS,
        BENCH_CALLS_PER_USER: CALLS_PER_USER,
        // Servers started before the clock: the first calls measure start-ups, not detection.
        BENCH_WARM: '1',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const result = JSON.parse(run.stdout) as ConcurrentCalls;
  if (!result.pass)
    throw new Error(`concurrent-calls (${method}, ${seed} files) failed: ${run.stdout.slice(0, 2000)}`);
  // Calls after each user's first: the tracker exists and the seed files are in place.
  return {
    call_p50_ms: result.call_after_first.p50_ms,
    call_p95_ms: result.call_after_first.p95_ms,
    calls_per_s: result.calls_per_s,
    ferry_cpu_s: result.cpu_s.ferry,
  };
}

function medianOf(runs: RunSummary[]): RunSummary {
  return {
    call_p50_ms: round(median(runs.map((r) => r.call_p50_ms))),
    call_p95_ms: round(median(runs.map((r) => r.call_p95_ms))),
    calls_per_s: round(median(runs.map((r) => r.calls_per_s))),
    ferry_cpu_s: round(median(runs.map((r) => r.ferry_cpu_s))),
  };
}

try {
  const sizes = [0, SEEDED];
  const runs = new Map<string, RunSummary[]>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const seed of sizes) {
      // Alternate which method goes first, so a warming or cooling machine favours neither.
      const order = r % 2 === 0 ? METHODS : [...METHODS].reverse();
      for (const method of order) {
        console.error(
          `[workspace-detection] round ${r + 1}/${ROUNDS}: ${method}, ${seed} files per workspace`,
        );
        const key = `${method}/${seed}`;
        runs.set(key, [...(runs.get(key) ?? []), runOnce(method, seed)]);
      }
    }
  }
  const results = sizes.map((seed) => {
    const watch = medianOf(runs.get(`watch/${seed}`) ?? []);
    const walk = medianOf(runs.get(`walk/${seed}`) ?? []);
    return {
      seed_files_per_workspace: seed,
      watch,
      walk,
      walk_over_watch: {
        call_p50: round(walk.call_p50_ms / watch.call_p50_ms, 3),
        call_p95: round(walk.call_p95_ms / watch.call_p95_ms, 3),
        calls_per_s: round(walk.calls_per_s / watch.calls_per_s, 3),
        ferry_cpu: round(walk.ferry_cpu_s / watch.ferry_cpu_s, 3),
      },
    };
  });
  console.log(
    JSON.stringify({
      bench: 'workspace-detection',
      command: benchCommand('workspace-detection', [
        'BENCH_ROUNDS',
        'BENCH_USERS',
        'BENCH_CALLS_PER_USER',
        'BENCH_SEED_FILES',
      ]),
      rounds: ROUNDS,
      users: Number(USERS),
      calls_per_user: Number(CALLS_PER_USER),
      measured: 'calls after each user’s first (tracker built, seed files in place); medians over rounds',
      results,
      pass: true,
    }),
  );
} catch (error) {
  console.log(
    JSON.stringify({
      bench: 'workspace-detection',
      error: error instanceof Error ? error.message : String(error),
      pass: false,
    }),
  );
  process.exitCode = 1;
}
