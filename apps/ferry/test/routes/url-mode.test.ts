// `url` file mode end to end: a remote (Streamable HTTP) server gets a signed download URL and
// fetches the user's file from Ferry's content route with it, as a real tool would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { http, REPO_ROOT, settledCall, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';

let t: TestApp;
let child: ChildProcess;
let remoteDir: string;

beforeAll(async () => {
  remoteDir = await mkdtemp(join(tmpdir(), 'ferry-remote-'));
  child = spawn(process.execPath, [exampleScript('report'), '--http', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, FERRY_WORKSPACE_ROOT: remoteDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`report --http did not start:\n${log}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
  });
  t = await startTestApp({ servers: { remote: { transport: 'http', url, fileMode: 'url' } } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  child?.kill('SIGTERM');
  await rm(remoteDir, { recursive: true, force: true });
});

it('the tool downloads the file through a signed token URL', async () => {
  await uploadOk(t.url, 'sales.csv', 'region,sales\nNorth,120\nSouth,80\nEast,45\n', {
    'content-type': 'text/csv',
  });
  const start = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'remote', tool: 'csv_report', arguments: { filename: 'sales.csv' } }),
  });
  const { callId } = start.json<{ callId: string }>();
  const detail = await settledCall<{
    status: string;
    response: { forModel: { results: { rows?: number } } } | null;
  }>(t.url, callId);
  expect(detail?.status).toBe('finished');
  // Three data rows: the tool read the bytes it fetched from Ferry with the token.
  expect(detail?.response?.forModel.results.rows).toBe(3);
});
