// Builds the web app (vite build → apps/web/dist) for `npm start` and `npm test`. `ifStale`
// skips the build when dist/index.html is newer than every source file, so a second `npm start`
// starts at once; a fresh checkout (`npm ci && npm start`) builds first.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newestMtime } from '../../../scripts/newest-mtime.mjs';

const WEB = join(import.meta.dirname, '..');
const ROOT = join(WEB, '../..');
// What the bundle is made of: the app's sources and config, and @ferry/contract, which it imports.
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'package.json', '../../packages/contract/src'];

export function webBuildIsStale() {
  const built = join(WEB, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return INPUTS.some((input) => newestMtime(join(WEB, input)) > builtAt);
}

/**
 * Runs vite build; returns true when it succeeded. `outDir` builds elsewhere than apps/web/dist
 * (the bundle budget test measures a fresh build without touching the one Ferry serves).
 */
export function buildWeb({ ifStale = false, quiet = false, outDir = undefined } = {}) {
  if (ifStale && !webBuildIsStale()) return true;
  console.log(`[web] building the web app (${outDir ?? 'apps/web/dist'})…`);
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const target = outDir === undefined ? [] : ['--outDir', outDir, '--emptyOutDir'];
  const run = spawnSync(process.execPath, [vite, 'build', '--logLevel', quiet ? 'warn' : 'info', ...target], {
    cwd: WEB,
    stdio: 'inherit',
    // Always the production bundle: an inherited NODE_ENV=test (vitest) would give React's dev build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (run.status !== 0) {
    console.error(`[web] the web app build failed (exit ${run.status ?? run.signal})`);
    return false;
  }
  return true;
}
