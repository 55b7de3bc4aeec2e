// server-everything in its legacy HTTP+SSE mode, as a separate process. The MCP SDK v2 has no SSE
// server transport (only Streamable HTTP), so the published server (built on SDK v1's
// SSEServerTransport) is the real legacy SSE server we test against. It takes its port from
// PORT and does not report the one it got, so a free port is picked first.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { EVERYTHING_BIN } from './servers.js';

export interface EverythingSse {
  /** The SSE endpoint, http://127.0.0.1:<port>/sse */
  url: string;
  close(): Promise<void>;
}

export async function startEverythingSse(): Promise<EverythingSse> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_BIN, 'sse'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr += text;
      if (stderr.includes('Server is running on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything sse exited (${code}): ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/sse`,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
