// The web app's initial JavaScript budget: what a browser must fetch before the first screen
// (index.html's module scripts and modulepreloads, and every chunk they import statically),
// gzipped, at most 120 kB. Lazy chunks (viewers, the chat panel) do not count. Checked by
// apps/web/test/bundle-budget.test.ts in `npm test`; by hand: `node apps/web/scripts/bundle-budget.mjs
// [dist]` prints the sizes and exits 1 above the budget.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** kB as Vite prints them (1000 bytes). */
export const INITIAL_JS_BUDGET_BYTES = 120_000;

const SCRIPT_TAG = /<script\b[^>]*>/gi;
const LINK_TAG = /<link\b[^>]*>/gi;
// Static `import … from "./x.js"`, `import "./x.js"` and `export … from "./x.js"`; a dynamic
// `import("./x.js")` has a parenthesis before the quote and is left out on purpose.
const STATIC_IMPORT = /(?:\bfrom|\bimport)\s*["']([^"']+\.m?js)["']/g;

function attribute(tag, name) {
  return new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(tag)?.[1];
}

/** The initial scripts of a build, as absolute paths, in load order. */
export function initialScripts(dist) {
  const indexPath = join(dist, 'index.html');
  if (!existsSync(indexPath)) throw new Error(`${indexPath} is missing: build the web app first`);
  const html = readFileSync(indexPath, 'utf8');
  const roots = [];
  for (const [tag] of html.matchAll(SCRIPT_TAG)) {
    const src = attribute(tag, 'src');
    if (src && attribute(tag, 'type') === 'module') roots.push(src);
  }
  for (const [tag] of html.matchAll(LINK_TAG)) {
    const href = attribute(tag, 'href');
    if (href && attribute(tag, 'rel') === 'modulepreload') roots.push(href);
  }
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    if (!existsSync(file)) throw new Error(`index.html or a chunk refers to a missing file: ${file}`);
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const match of code.matchAll(STATIC_IMPORT)) {
      const specifier = match[1];
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else if (specifier.startsWith('/')) visit(join(dist, specifier));
    }
  };
  for (const url of roots) {
    if (/^[a-z]+:/i.test(url)) continue; // an external script is not part of this build
    visit(join(dist, url.split(/[?#]/, 1)[0]));
  }
  return [...seen];
}

/** Sizes of the initial scripts: raw and gzipped (level 9, as the build's .gz files). */
export function measureInitialJs(dist) {
  const files = initialScripts(dist).map((file) => {
    const data = readFileSync(file);
    return { file: relative(dist, file), bytes: data.length, gzip: gzipSync(data, { level: 9 }).length };
  });
  return {
    files,
    totalBytes: files.reduce((sum, f) => sum + f.bytes, 0),
    totalGzip: files.reduce((sum, f) => sum + f.gzip, 0),
    budget: INITIAL_JS_BUDGET_BYTES,
  };
}

const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;

export function formatReport(report) {
  const lines = report.files.map((f) => `  ${f.file}  ${kB(f.bytes)} (gzip ${kB(f.gzip)})`);
  lines.push(
    `  initial JS: ${kB(report.totalBytes)}, gzip ${kB(report.totalGzip)} of a ${kB(report.budget)} budget`,
  );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dist = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'dist'));
  const report = measureInitialJs(dist);
  console.log(formatReport(report));
  if (report.totalGzip > report.budget) {
    console.error('initial JS is over budget: lazy-load what the first screen does not need');
    process.exit(1);
  }
}
