// Starts support/start-ferry.ts in a child process (tsx with the ferry-source condition, as
// `npm start` does) and resolves with its URL once it listens. global-setup.ts starts the shared
// Ferry with it; chat.spec.ts starts its own, pointed at a scripted model (FERRY_LLM_*), so the
// shared one keeps "No model configured".
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

export interface SpawnedFerry {
  url: string;
  stop(): Promise<void>;
}

/** `env` is added to this process's environment (start-ferry.ts passes FERRY_LLM_* on to Ferry). */
export async function spawnFerry(env: Record<string, string> = {}): Promise<SpawnedFerry> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=ferry-source', join(REPO_ROOT, 'e2e/support/start-ferry.ts')],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } },
  );
  const url = await waitForUrl(child);
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
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
    },
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

/** A Ferry of its own whose chat talks to a scripted model at `modelBaseURL`, with no retries. */
export function spawnFerryWithModel(modelBaseURL: string): Promise<SpawnedFerry> {
  return spawnFerry({
    FERRY_LLM_BASE_URL: modelBaseURL,
    FERRY_LLM_API_KEY: 'sk-e2e',
    FERRY_LLM_MODEL: 'scripted-e2e',
    FERRY_LLM_MAX_RETRIES: '0',
  });
}
