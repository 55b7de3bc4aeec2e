// npm test repeats the failed tests at the end of its output: these run real Vitest and Playwright
// on a failing test, a passing one and a file that cannot load, and read their real JSON reports.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { playwrightFailures, vitestFailures } from '../test-failures.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ferry-test-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('failed tests named at the end of npm test', () => {
  it('names a failed Vitest test and a file that failed to load, not the passing test', () => {
    writeFileSync(join(dir, 'package.json'), '{}');
    writeFileSync(
      join(dir, 'a.test.ts'),
      "import { describe, expect, it } from 'vitest';\ndescribe('group', () => { it('fails here', () => { expect(1).toBe(2); }); it('passes', () => {}); });\n",
    );
    writeFileSync(
      join(dir, 'b.test.ts'),
      "import './missing-module.js';\nimport { it } from 'vitest';\nit('x', () => {});\n",
    );
    const report = join(dir, 'vitest.json');
    spawnSync(
      join(ROOT, 'node_modules/.bin/vitest'),
      ['run', '--root', dir, '--reporter=json', `--outputFile.json=${report}`],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    const failures = vitestFailures(JSON.parse(readFileSync(report, 'utf8')), dir);
    expect(failures).toEqual([
      'a.test.ts › group fails here: AssertionError: expected 1 to be 2 // Object.is equality',
      expect.stringMatching(/^b\.test\.ts: .*missing-module\.js/),
    ]);
  });

  it('names a failed Playwright test with its describe titles', () => {
    const pw = join(dir, 'pw');
    rmSync(pw, { recursive: true, force: true });
    mkdirSync(pw);
    // The spec imports @playwright/test as e2e/ does: from the repository's packages.
    symlinkSync(join(ROOT, 'node_modules'), join(pw, 'node_modules'));
    writeFileSync(
      join(pw, 'x.spec.ts'),
      "import { expect, test } from '@playwright/test';\ntest.describe('outer', () => { test('breaks', () => { expect('a').toBe('b'); }); test('holds', () => {}); });\n",
    );
    writeFileSync(join(pw, 'playwright.config.ts'), "export default { testDir: '.', reporter: 'json' };\n");
    const report = join(dir, 'playwright.json');
    spawnSync(
      join(ROOT, 'node_modules/.bin/playwright'),
      ['test', '--config', join(pw, 'playwright.config.ts')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
      },
    );
    const failures = playwrightFailures(JSON.parse(readFileSync(report, 'utf8')));
    expect(failures).toEqual([
      expect.stringMatching(/^x\.spec\.ts:2 › outer › breaks \(unexpected\): Error: expect\(.*toBe/),
    ]);
  });

  it('names a Playwright spec that cannot load', () => {
    const report = {
      errors: [
        {
          message: "Error: Cannot find module 'nope'\nRequire stack:",
          location: { file: '/x/y.spec.ts', line: 1 },
        },
      ],
      suites: [],
    };
    expect(playwrightFailures(report)).toEqual(["/x/y.spec.ts:1: Error: Cannot find module 'nope'"]);
  });
});
