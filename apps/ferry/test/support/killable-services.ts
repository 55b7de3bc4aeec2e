// Backing services a fault test can kill (SIGKILL, as a crash or an OOM kill does) and start
// again on the same port and directory, as an orchestrator restarts them: an s3rver (the child
// script of @ferry/test-helpers, given its old port) and a redis-server of the test's own (never
// the machine's shared Redis). Both on loopback; `stop()` ends them for good.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './start-app.js';

const S3RVER_CHILD = join(REPO_ROOT, 'packages/test-helpers/src/s3rver-child.mjs');
const START_TIMEOUT_MS = 20_000;

export interface KillableService {
  readonly port: number;
  /** The running process's id (changes with a restart). */
  readonly pid: number;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (and directory); resolves once it listens. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface KillableS3 extends KillableService {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  directory: string;
}

export async function startKillableS3(): Promise<KillableS3> {
  const directory = await mkdtemp(join(tmpdir(), 'ferry-fault-s3-'));
  const bucket = `ferry-fault-${randomBytes(6).toString('hex')}`;
  const launch = (port: number) =>
    spawn(process.execPath, ['--openssl-legacy-provider', S3RVER_CHILD, directory, bucket, String(port)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  const service = await startKillable(launch, async (child) => {
    const line = await firstLine(child);
    const port = (JSON.parse(line) as { port?: unknown }).port;
    if (typeof port !== 'number') throw new Error(`s3rver said ${line}`);
    return port;
  });
  const stopService = service.stop;
  return Object.assign(service, {
    endpoint: `http://127.0.0.1:${service.port}`,
    bucket,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    directory,
    stop: async () => {
      await stopService();
      await rm(directory, { recursive: true, force: true });
    },
  });
}

export interface KillableRedis extends KillableService {
  url: string;
}

/** A redis-server of the test's own, in memory only (no RDB, no AOF: a restart starts empty). */
export async function startKillableRedis(): Promise<KillableRedis> {
  const port = await freePort();
  const launch = () =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'notice',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
  const service = await startKillable(launch, async (child) => {
    await lineMatching(child, /Ready to accept connections/);
    return port;
  });
  return Object.assign(service, { url: `redis://127.0.0.1:${port}` });
}

type Launch = (port: number) => ChildProcess;

async function startKillable(
  launch: Launch,
  listening: (child: ChildProcess) => Promise<number>,
): Promise<KillableService> {
  let port = 0;
  let child: ChildProcess;
  const start = async () => {
    const next = launch(port);
    child = next;
    let stderr = '';
    next.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const died = new Promise<never>((_resolve, reject) =>
      next.once('exit', (code, signal) =>
        reject(new Error(`exited before listening (code ${code}, signal ${signal}): ${stderr}`)),
      ),
    );
    died.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not listening after ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
    });
    try {
      port = await Promise.race([listening(next), died, timeout]);
    } catch (error) {
      next.kill('SIGKILL');
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  const killChild = async (signal: NodeJS.Signals) => {
    const current = child;
    if (current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    current.kill(signal);
    await exited;
  };
  await start();
  return {
    get port() {
      return port;
    },
    get pid() {
      return child.pid ?? 0;
    },
    kill: () => killChild('SIGKILL'),
    restart: start,
    stop: () => killChild('SIGKILL'),
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return lineMatching(child, /./);
}

function lineMatching(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (!pattern.test(line)) return;
      lines.removeAllListeners('line');
      // Keep draining stdout so a chatty server never blocks on a full pipe.
      lines.on('line', () => {});
      resolve(line);
    });
  });
}

/** A port free on loopback a moment ago (redis-server cannot be asked to pick one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
