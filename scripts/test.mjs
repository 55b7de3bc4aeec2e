#!/usr/bin/env node
// npm test: runs every test runner with a JSON report, then prints one summary line summed over
// all of them, so a run that executed nothing (or skipped work) is visible at a glance.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWeb } from '../apps/web/scripts/build-web.mjs';
import { ensurePrerequisites } from './prerequisites.mjs';
import { playwrightFailures, vitestFailures } from './test-failures.mjs';

// The machine first (Chromium, bubblewrap, PostgreSQL…): anything missing is installed when it can
// be, or the run stops here, within seconds, with the commands to run (scripts/prerequisites.mjs).
const prerequisites = await ensurePrerequisites();
if (prerequisites !== 0) process.exit(prerequisites);

const root = join(import.meta.dirname, '..');
const reports = join(root, 'test-results');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const runners = [
  {
    name: 'vitest',
    command: [
      'node_modules/.bin/vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${join(reports, 'vitest.json')}`,
    ],
    report: join(reports, 'vitest.json'),
    enabled: true,
  },
  {
    name: 'playwright',
    command: ['node_modules/.bin/playwright', 'test', '--config', 'e2e/playwright.config.ts'],
    report: join(reports, 'playwright.json'),
    // A checkout without the browser suite says so rather than counting it as passed. It tests
    // the built app, so the build runs first; a failed build counts as a failure (no report is written).
    enabled: existsSync(join(root, 'e2e', 'playwright.config.ts')),
    before: () => buildWeb({ quiet: true }),
  },
  {
    // The official MCP conformance client scenarios against Ferry's MCP client, after the rest so
    // the machine is quiet for their timing checks; counted in checks, failures against a baseline
    // (scripts/conformance.mjs, docs/conformance.md).
    name: 'conformance',
    command: [process.execPath, 'scripts/conformance.mjs'],
    report: join(reports, 'conformance.json'),
    enabled: existsSync(join(root, 'tools', 'conformance', 'package.json')),
  },
];

const totals = { passed: 0, failed: 0, skipped: 0 };
/** Names of the failed tests with the first line of their error, repeated at the end of the run
 * so the tail of a long CI log says what failed (the runners' own output is far above). */
const failures = [];
let broken = false;
for (const runner of runners) {
  if (!runner.enabled) {
    console.log(`\n[test] ${runner.name}: no suite in this checkout (not a skip: nothing exists to run)`);
    continue;
  }
  if (runner.before && !runner.before()) {
    console.error(`[test] ${runner.name}: preparation failed, not run`);
    broken = true;
    totals.failed += 1;
    continue;
  }
  console.log(`\n[test] ${runner.name}: ${runner.command.join(' ')}`);
  const run = spawnSync(runner.command[0], runner.command.slice(1), {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: runner.report },
  });
  const report = existsSync(runner.report) ? JSON.parse(readFileSync(runner.report, 'utf8')) : undefined;
  const counts = report && readCounts(runner, report);
  if (!counts) {
    console.error(
      `[test] ${runner.name}: no JSON report at ${runner.report} (exit ${run.status ?? run.signal})`,
    );
    broken = true;
    continue;
  }
  if (run.status !== 0 && counts.failed === 0) {
    // A crash or a file that failed to load: count it, never report it as green.
    console.error(`[test] ${runner.name}: exited with ${run.status ?? run.signal} although no test failed`);
    counts.failed = 1;
  }
  if (runner.name === 'vitest') failures.push(...vitestFailures(report, root));
  if (runner.name === 'playwright') failures.push(...playwrightFailures(report));
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
}

function readCounts(runner, report) {
  if (runner.name === 'vitest') {
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
    };
  }
  if (runner.name === 'conformance') {
    // Checks that passed; a run that failed its baseline check counts as one failure.
    return { passed: report.passed, failed: report.failed, skipped: 0 };
  }
  const stats = report.stats ?? {};
  return {
    passed: stats.expected ?? 0,
    failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0),
    skipped: stats.skipped ?? 0,
  };
}

const executed = totals.passed + totals.failed;
if (executed === 0) {
  console.error('[test] no test was executed');
  broken = true;
}
console.log('');
for (const failure of failures) console.log(`[test] FAILED ${failure}`);
console.log(
  `tests: ${totals.passed} passed, ${totals.failed} failed${totals.skipped > 0 ? `, ${totals.skipped} skipped` : ''}`,
);
process.exit(broken || totals.failed > 0 ? 1 : 0);
