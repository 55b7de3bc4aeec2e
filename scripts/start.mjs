#!/usr/bin/env node
// npm start: starts Ferry. Until the HTTP server (apps/ferry) exists, it says what this checkout
// has, so the README's first command never fails.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const server = join(root, 'apps', 'ferry', 'package.json');
if (existsSync(server)) {
  const { spawnSync } = await import('node:child_process');
  const run = spawnSync('npm', ['run', 'start', '--workspace', 'apps/ferry'], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(run.status ?? 1);
}

const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
console.log('Ferry, the file-aware MCP host');
console.log('');
console.log('The HTTP server and web app (apps/ferry, apps/web) are not in this checkout yet, so there is');
console.log('nothing to serve. What exists now:');
for (const workspace of workspaces) {
  const pkg = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8'));
  console.log(`  ${pkg.name.padEnd(18)} ${pkg.description}`);
}
console.log('');
console.log('Run every test with: npm test');
