#!/usr/bin/env node
// npm run bench: runs every bench/*.ts (each prints one JSON document) and prints them as one
// JSON array. Targets are checked by the benchmarks themselves (`pass` field).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildServers } from '../examples/servers/scripts/build-servers.mjs';

const root = join(import.meta.dirname, '..');
const dir = join(root, 'bench');
const only = process.argv.slice(2);
const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && !file.startsWith('_'))
      .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
      .sort()
  : [];
if (files.length === 0) {
  console.log(JSON.stringify({ benchmarks: [], note: 'no benchmarks in bench/ yet' }));
  process.exit(0);
}
// The benchmarks run the example servers as ferry.config.json does, from their build.
if (!(await buildServers({ ifStale: true, quiet: true }))) process.exit(1);
const results = [];
let failed = false;
for (const file of files) {
  console.error(`[bench] ${file}`);
  const run = spawnSync(join(root, 'node_modules/.bin/tsx'), ['--conditions=ferry-source', join(dir, file)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  try {
    const result = JSON.parse(run.stdout);
    results.push(result);
    if (result.pass === false || run.status !== 0) failed = true;
  } catch {
    results.push({
      bench: file,
      error: `no JSON output (exit ${run.status})`,
      stdout: run.stdout.slice(-2000),
    });
    failed = true;
  }
}
console.log(JSON.stringify(results, null, 2));
process.exit(failed ? 1 : 0);
