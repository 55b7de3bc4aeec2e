// Runs a real Ferry for the browser tests, in its own process (started by global-setup.ts with
// tsx and the ferry-source condition, as `npm start` does): a fresh temporary directory as cwd
// (own data dir), the example servers of ferry.config.json and test/ferry.test-config.json (legacy,
// escape, the slow server's hang and crash), the slow server with scaled-down
// timeouts (notices at 3/4/5 s, timeout at 6 s instead of 15/20/25/30 s), a random loopback port,
// the built web app, and a model when FERRY_LLM_* are set (chat.spec.ts). Prints
// `FERRY_URL=<url>` once listening; stops on SIGTERM.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '@ferry/app/server';
import { configuredServers } from '@ferry/test-helpers/example-servers';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
/** The test suite's slow-server timeout; e2e tests derive the notice times from it. */
export const E2E_TIMEOUT_SECONDS = 6;
/** Small enough that the "too large" test needs no gigabytes. */
export const E2E_MAX_FILE_SIZE_MB = 4;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-e2e-'));
  const all = await configuredServers();
  const servers: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(all)) {
    if (server.transport !== 'stdio') continue;
    servers[name] = {
      ...server,
      command: process.execPath,
      cwd: REPO_ROOT,
      ...(name === 'slow' ? { timeouts: { timeoutSeconds: E2E_TIMEOUT_SECONDS, hardCapSeconds: 120 } } : {}),
    };
  }
  // Servers a spec started itself (e.g. a remote one on loopback), as JSON: name → server entry.
  Object.assign(servers, JSON.parse(process.env.FERRY_E2E_SERVERS || '{}') as Record<string, unknown>);
  const configPath = join(dir, 'ferry.config.json');
  await writeFile(
    configPath,
    JSON.stringify(
      {
        servers,
        flags: { max_file_size_mb: E2E_MAX_FILE_SIZE_MB },
        storage: { dataDir: './data' },
        // As ferry.config.json: the servers that ask for the file provider (secrets) get it.
        fileProvider: { enabled: true },
      },
      null,
      2,
    ),
  );
  // Ferry serves <cwd>/apps/web/dist: point it at the repository's build.
  await mkdir(join(dir, 'apps/web'), { recursive: true });
  await symlink(join(REPO_ROOT, 'apps/web/dist'), join(dir, 'apps/web/dist'), 'dir');

  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  // A model for the chat tests (spawn-ferry.ts); empty values mean none.
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('FERRY_LLM_') && value) env[key] = value;
  }
  const server = await startServer({
    configPath,
    cwd: dir,
    host: '127.0.0.1',
    port: 0,
    env,
    logLevel: 'warn',
  });
  process.stdout.write(`FERRY_URL=${server.url}\n`);

  const stop = async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // The parent's pipe closing means the test run is over, even if it could not signal.
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

main().catch((error: unknown) => {
  process.stderr.write(`start-ferry: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
