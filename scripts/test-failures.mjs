// The failed tests named in a runner's JSON report, one line each with the first line of the
// error: npm test repeats them at the end so the tail of a long CI log says what failed.

import { stripVTControlCharacters } from 'node:util';

// Runners colour their messages; a log line reads better plain.
const firstLine = (text) =>
  stripVTControlCharacters(String(text ?? ''))
    .trim()
    .split('\n')[0]
    .slice(0, 300);

/** Failed tests in Vitest's JSON report; a file that failed outside any test (load error, hook,
 * unhandled error) is named with its message. Paths are shown relative to `root`. */
export function vitestFailures(report, root) {
  const found = [];
  for (const file of report.testResults ?? []) {
    const path = String(file.name).startsWith(`${root}/`)
      ? String(file.name).slice(root.length + 1)
      : file.name;
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed)
      found.push(`${path} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.status === 'failed') found.push(`${path}: ${firstLine(file.message)}`);
  }
  return found;
}

/** Tests in Playwright's JSON report that did not end as expected (failed, timed out, flaky), and
 * errors outside any test (a spec that cannot load, a global setup that threw). */
export function playwrightFailures(report) {
  const found = (report.errors ?? []).map((error) => {
    const where = error.location ? `${error.location.file}:${error.location.line}: ` : '';
    return `${where}${firstLine(error.message)}`;
  });
  const walk = (suite, titles) => {
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'expected' || test.status === 'skipped') continue;
        const error = test.results?.find((result) => result.error)?.error?.message;
        const title = [...titles, spec.title].filter(Boolean).join(' › ');
        found.push(`${spec.file}:${spec.line} › ${title} (${test.status}): ${firstLine(error)}`);
      }
    }
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return found;
}
