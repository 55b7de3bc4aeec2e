// Starts Ferry once for the whole browser suite (support/start-ferry.ts in a child process) and
// stops it afterwards. The URL reaches the tests through FERRY_E2E_URL (baseURL in the config).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..');

// biome-ignore lint/style/noDefaultExport: Playwright loads globalSetup through the module's default export
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!existsSync(join(REPO_ROOT, 'apps/web/dist/index.html'))) {
    throw new Error('apps/web/dist is missing: run `npm run build:web` first (scripts/test.mjs does)');
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=ferry-source', join(REPO_ROOT, 'e2e/support/start-ferry.ts')],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const url = await waitForUrl(child);
  process.env.FERRY_E2E_URL = url;
  return async () => {
    child.kill('SIGTERM');
    await new Promise<void>((done) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done();
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        done();
      });
    });
  };
}

function waitForUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`Ferry did not start within 60 s:\n${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /FERRY_URL=(\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Ferry exited with ${code} before listening:\n${output}`));
    });
  });
}
