// The initial JS budget (≤ 120 kB gzipped) on a fresh production build of the current sources,
// made in a temporary directory (apps/web/dist, which Ferry and the browser tests use, is left
// alone). A failed build fails the test: it never skips.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../scripts/build-web.mjs';
import {
  formatReport,
  INITIAL_JS_BUDGET_BYTES,
  initialScripts,
  measureInitialJs,
} from '../scripts/bundle-budget.mjs';

describe('initialScripts', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'ferry-budget-fixture-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(
      join(dist, 'index.html'),
      '<script type="module" crossorigin src="/assets/entry.js"></script>' +
        '<link rel="modulepreload" crossorigin href="/assets/preloaded.js">' +
        '<link rel="stylesheet" href="/assets/style.css">',
    );
    writeFileSync(
      join(dist, 'assets/entry.js'),
      'import{a as b}from"./shared.js";import"./side.js";const l=()=>import("./lazy.js");',
    );
    for (const name of ['shared', 'side', 'preloaded', 'lazy']) {
      writeFileSync(join(dist, `assets/${name}.js`), `export const a=${JSON.stringify(name)};`);
    }
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('follows the entry, modulepreloads and static imports, not dynamic imports', () => {
    const files = initialScripts(dist).map((file) => file.slice(dist.length + 1));
    expect(files.sort()).toEqual([
      'assets/entry.js',
      'assets/preloaded.js',
      'assets/shared.js',
      'assets/side.js',
    ]);
  });

  it('fails loudly without a build', () => {
    expect(() => initialScripts(join(dist, 'assets'))).toThrow(/index\.html is missing/);
  });
});

describe('the production build', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'ferry-budget-build-'));
    if (!buildWeb({ quiet: true, outDir: dist })) throw new Error('vite build failed (see its output above)');
  }, 180_000);
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it(`loads at most ${INITIAL_JS_BUDGET_BYTES / 1000} kB of gzipped JS before the first screen`, () => {
    const report = measureInitialJs(dist);
    console.log(`[bundle budget]\n${formatReport(report)}`);
    expect(report.files.length).toBeGreaterThan(0);
    expect(report.totalGzip).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });

  it('keeps zod out of the first screen (the contract helpers the app imports are zod-free)', () => {
    for (const file of measureInitialJs(dist).files) {
      expect(readFileSync(join(dist, file.file), 'utf8'), file.file).not.toContain('ZodError');
    }
  });

  it('publishes no source maps and ships .br/.gz beside the scripts', () => {
    const files = readdirSync(dist, { recursive: true }).map(String);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of measureInitialJs(dist).files) {
      expect(files).toContain(`${file.file}.br`);
      expect(files).toContain(`${file.file}.gz`);
    }
  });
});
