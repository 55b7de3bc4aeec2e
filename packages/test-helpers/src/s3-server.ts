// A real S3-compatible server (s3rver) on loopback for tests: the blob driver suite now, the
// FileStore suite later. It fails loudly when it cannot start; a suite whose backend is missing
// must never skip silently.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD_SCRIPT = fileURLToPath(new URL('./s3rver-child.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`; use with `forcePathStyle: true`. */
  endpoint: string;
  /** A fresh, empty bucket created for this server. */
  bucket: string;
  region: string;
  /** s3rver's fixed credentials; it checks request signatures against them. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Where s3rver keeps objects, for tests that inspect the backend itself. */
  directory: string;
  /** Stops the server and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 with a random port, a temp directory and a fresh bucket. It runs in a
 * child process started with `--openssl-legacy-provider` (see s3rver-child.mjs for why).
 */
export async function startS3Server(): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'ferry-s3rver-'));
  const bucket = `ferry-test-${randomBytes(6).toString('hex')}`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', CHILD_SCRIPT, directory, bucket], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
  });

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const removeDirectory = () => rm(directory, { recursive: true, force: true });

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`s3rver did not start within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        clearTimeout(timer);
        try {
          const parsed = JSON.parse(line) as { port?: unknown };
          if (typeof parsed.port !== 'number') throw new Error(`unexpected output: ${line}`);
          resolve(parsed.port);
        } catch (error) {
          reject(error);
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited before listening (code ${code}, signal ${signal})`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    await removeDirectory();
    throw new Error(`[ferry test] could not start s3rver: ${(error as Error).message}\n${stderr}`, {
      cause: error,
    });
  }

  let stopping: Promise<void> | undefined;
  // A crash mid-suite otherwise shows only as ECONNREFUSED in every later test.
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`[ferry test] s3rver exited (code ${code}, signal ${signal}):\n${stderr}`);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    directory,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.stdin.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        await removeDirectory();
      })();
      return stopping;
    },
  };
}
