// Call-overhead benchmark: a no-file tool (server-everything's `echo`, published and
// unmodified) called FERRY_BENCH_CALLS times (default 1,000) directly with the SDK client over
// stdio, and through Ferry's whole pipeline (conventions, arguments, watchdog, output collection
// with workspace detection, answer) against the same server command, in the same run; then again
// with 1,000 files in the user's workspace. Target: <= 2 ms added at p50 in both cases.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '@ferry/host';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { median, percentile, round } from './_measure.js';

const CALLS = Number(process.env.FERRY_BENCH_CALLS ?? 1000);
const WARMUP = 50;
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

async function latencies(call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call();
  const out: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await call();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

const summary = (values: number[]) => ({
  p50_ms: round(median(values), 3),
  p95_ms: round(percentile(values, 95), 3),
  p99_ms: round(percentile(values, 99), 3),
});

const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-calls-'));
try {
  // Direct: the SDK client and nothing else.
  const client = new Client({ name: 'bench-direct', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  const direct = await latencies(() => client.callTool({ name: 'echo', arguments: { message: 'hi' } }));
  await client.close();

  // Through Ferry.
  const storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  const host = createHost({
    config: {
      servers: { everything: { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:0/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  const owner = await storage.files.ensureUser('bench');
  const call = async () => {
    const response = await host.callTool({
      user: { owner, username: 'bench' },
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'hi' },
    });
    if (response.status !== 'finished')
      throw new Error(`call ${response.status}: ${JSON.stringify(response.forModel)}`);
  };
  const ferry = await latencies(call);

  // The same with 1,000 files in the user's workspace (detection walks it before and after).
  const workspace = await host.workspaces.forUser('bench');
  for (let i = 0; i < 10; i++) {
    const sub = join(workspace.hostDir, `dir-${i}`);
    await mkdir(sub, { recursive: true });
    for (let j = 0; j < 100; j++) await writeFile(join(sub, `file-${j}.txt`), `${i}-${j}`);
  }
  const ferryWithFiles = await latencies(call);
  await host.close();
  await storage.close();

  const directP50 = median(direct);
  const added = median(ferry) - directP50;
  const addedWithFiles = median(ferryWithFiles) - directP50;
  console.log(
    JSON.stringify({
      bench: 'call-overhead',
      calls: CALLS,
      server: '@modelcontextprotocol/server-everything echo over stdio',
      direct: summary(direct),
      ferry: summary(ferry),
      ferry_with_1000_workspace_files: summary(ferryWithFiles),
      added_p50_ms: round(added, 3),
      added_p50_ms_with_1000_files: round(addedWithFiles, 3),
      target: { added_p50_ms: 2 },
      pass: added <= 2 && addedWithFiles <= 2,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
