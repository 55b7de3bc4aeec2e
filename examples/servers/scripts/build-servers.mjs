#!/usr/bin/env node
// Builds the example MCP servers into examples/servers/dist/<name>.js, what ferry.config.json
// runs: one self-contained JavaScript bundle per server (no shared chunk: a chunk shared by all servers would
// load what any of them uses, ~14 MiB more RSS per process), so a server start is plain
// `node dist/<name>.js` with no TypeScript compiler at run time and only the modules it uses
// loaded. Measured on this project's 2-core machine: the inject server ready (initialize +
// tools/list) in ~0.25 s of CPU and ~70 MiB RSS, against ~1.25 s and ~140 MiB through tsx.
// `npm ci` (prepare), `npm start` and `npm test` run it with --if-stale, which skips the build
// when dist is newer than every source. Sources come in through the `ferry-source` condition,
// so no package needs its own dist first.
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newestMtime } from '../../../scripts/newest-mtime.mjs';

const SERVERS = join(import.meta.dirname, '..');
const ROOT = join(SERVERS, '../..');
const DIST = join(SERVERS, 'dist');
const STAMP = join(DIST, '.built');
/** What the bundles are made of: the servers, and the workspace packages they import from source. */
const INPUTS = [
  join(SERVERS, 'src'),
  join(SERVERS, 'package.json'),
  join(ROOT, 'packages/server-kit/src'),
  join(ROOT, 'packages/server-kit/package.json'),
  join(ROOT, 'packages/contract/src'),
  join(ROOT, 'package-lock.json'),
  import.meta.filename,
];

/** The servers: every top-level src/*.ts (each one runs itself when it is the main module). */
function serverEntries() {
  const src = join(SERVERS, 'src');
  return readdirSync(src)
    .filter((name) => name.endsWith('.ts') && statSync(join(src, name)).isFile())
    .map((name) => join(src, name));
}

export function serversBuildIsStale() {
  if (!existsSync(STAMP)) return true;
  const builtAt = statSync(STAMP).mtimeMs;
  return INPUTS.some((input) => newestMtime(input) > builtAt);
}

/**
 * zod re-exports its ~50 locales as `z.locales` (~300 KB, 1 in 4 bytes of a bundle), which no
 * tree-shaking can drop; a server keeps its whole source in memory while it runs. The example
 * servers speak English (zod's default), so `z.locales` here holds `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** Bundles every example server; returns true when it succeeded (or nothing was stale). */
export async function buildServers({ ifStale = false, quiet = false } = {}) {
  if (ifStale && !serversBuildIsStale()) return true;
  if (!quiet) console.log('[servers] building the example servers (examples/servers/dist)…');
  let build;
  try {
    ({ build } = await import('esbuild'));
  } catch {
    // `npm ci --omit=dev`: no bundler. Said, not fatal for the install; `ferry start` then names
    // each configured server whose dist/<name>.js is missing.
    console.error(
      '[servers] esbuild is not installed (a dev dependency): the example servers were not built',
    );
    return false;
  }
  rmSync(DIST, { recursive: true, force: true });
  let result;
  try {
    result = await build({
      entryPoints: serverEntries(),
      outdir: DIST,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      conditions: ['ferry-source'],
      // The CommonJS dependencies (ajv) call require() for Node's built-ins.
      banner: {
        js: "import { createRequire as __ferryRequire } from 'node:module';\nconst require = __ferryRequire(import.meta.url);",
      },
      logLevel: quiet ? 'error' : 'warning',
      legalComments: 'none',
      // Whitespace and syntax only: names stay, so a stack trace still says which function failed.
      minifyWhitespace: true,
      minifySyntax: true,
      metafile: true,
      plugins: [zodEnglishOnly],
    });
  } catch (error) {
    console.error(
      `[servers] the example servers build failed: ${error instanceof Error ? error.message : error}`,
    );
    return false;
  }
  // A server file runs itself when it is the main module (isMainModule(import.meta.url)), and in a
  // bundle every module's import.meta.url is the bundle's: a server file bundled into another's
  // build would start a second server on the same stdio. Shared code belongs in src/lib.
  const entries = new Set(serverEntries().map((path) => relative(ROOT, path)));
  for (const [output, { entryPoint, inputs }] of Object.entries(result.metafile.outputs)) {
    const others = Object.keys(inputs).filter((input) => entries.has(input) && input !== entryPoint);
    if (others.length > 0) {
      console.error(
        `[servers] ${output} bundles another server file (${others.join(', ')}): move what it shares to src/lib`,
      );
      return false;
    }
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const ok = await buildServers({ ifStale: process.argv.includes('--if-stale') });
  // As npm's `prepare` (--if-stale) a failed build is said above but does not fail the install.
  process.exitCode = ok || process.argv.includes('--if-stale') ? 0 : 1;
}
