// Starts Ferry once for the whole browser suite (support/start-ferry.ts in a child process) and
// stops it afterwards. The URL reaches the tests through FERRY_E2E_URL (baseURL in the config).
// This Ferry has no model (the chat shows "No model configured"); chat.spec.ts starts its own.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildServers } from '../examples/servers/scripts/build-servers.mjs';
import { spawnFerry } from './support/spawn-ferry';

const REPO_ROOT = resolve(import.meta.dirname, '..');

// biome-ignore lint/style/noDefaultExport: Playwright loads globalSetup through the module's default export
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!existsSync(join(REPO_ROOT, 'apps/web/dist/index.html'))) {
    throw new Error('apps/web/dist is missing: run `npm run build:web` first (scripts/test.mjs does)');
  }
  // The example servers run from their build, as ferry.config.json says.
  if (!(await buildServers({ ifStale: true, quiet: true }))) {
    throw new Error('the example servers did not build (examples/servers/scripts/build-servers.mjs)');
  }
  // Whatever FERRY_LLM_* the shell has, the shared Ferry runs without a model.
  const noModel = Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => key.startsWith('FERRY_LLM_'))
      .map((key) => [key, '']),
  );
  const ferry = await spawnFerry(noModel);
  process.env.FERRY_E2E_URL = ferry.url;
  return ferry.stop;
}
