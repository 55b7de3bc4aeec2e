import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const CRASH_WRITER = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));

/** Starts crash-writer.ts and resolves once its write is under way. */
export async function spawnCrashWriter(args: string[]): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=ferry-source', CRASH_WRITER, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      if (data.toString().includes('started')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`crash writer exited with ${code} before starting:\n${stderr}`)),
    );
  });
  return child;
}

/** SIGKILL, as a power cut or OOM kill would: no cleanup code runs. */
export async function killHard(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
