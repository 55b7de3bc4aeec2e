// A graceful stop (issue 22): while Ferry drains, /readyz says 503 at once, new tool calls and
// uploads are refused with E_SHUTTING_DOWN (503, retryable), a call already running finishes
// within the grace period, and one that outlasts it is cancelled with a clear reason.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { http, REPO_ROOT, upload } from '../support/start-app.js';

const SLOW = {
  transport: 'stdio',
  command: 'node',
  args: [exampleScript('slow')],
  cwd: REPO_ROOT,
  sandbox: 'off',
};

let dir: string;
let server: RunningServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-graceful-'));
  const config = join(dir, 'ferry.config.json');
  await writeFile(config, JSON.stringify({ servers: { slow: SLOW } }));
  server = await startServer({ cwd: dir, env: {}, port: 0, configPath: config });
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function startSlowCall(seconds: number): Promise<string> {
  const started = await http(server.url, '/api/calls', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds, steps: 4 } }),
  });
  expect(started.status, started.text).toBe(202);
  return started.json<{ callId: string }>().callId;
}

/** The call as the registry has it once the server is closed (the memory store outlives it). */
async function callAfterClose(callId: string) {
  const owner = await server.app.ferry.authenticator.ownerOf('dev');
  return server.app.ferry.calls.get(owner, callId);
}

describe('graceful stop', () => {
  it('drains: ready no more, new work refused, the running call finishes', async () => {
    expect((await http(server.url, '/readyz')).status).toBe(200);
    const callId = await startSlowCall(1.5);
    const closing = server.close({ graceMs: 20_000 });

    const ready = await http(server.url, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not_ready', checks: { shutdown: { ok: false } } });
    const refused = await http(server.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0, steps: 1 } }),
    });
    expect(refused.status).toBe(503);
    expect(refused.json()).toMatchObject({
      meta_data: { error_code: 'E_SHUTTING_DOWN', retryable: true },
    });
    const uploadRefused = await upload(server.url, 'late.txt', 'too late');
    expect(uploadRefused.status).toBe(503);
    expect(uploadRefused.json()).toMatchObject({ meta_data: { error_code: 'E_SHUTTING_DOWN' } });
    // Still served meanwhile: the running call can be followed to its end.
    expect((await http(server.url, `/api/calls/${callId}`)).status).toBe(200);

    await closing;
    expect((await callAfterClose(callId))?.status).toBe('finished');
  });

  it('cancels a call that outlasts the grace period, saying why', async () => {
    const callId = await startSlowCall(30);
    const before = Date.now();
    await server.close({ graceMs: 300 });
    expect(Date.now() - before).toBeLessThan(15_000);
    const call = await callAfterClose(callId);
    expect(call?.status).toBe('cancelled');
    const events = await server.app.ferry.calls.eventsAfter(callId, 0);
    expect(JSON.stringify(events.at(-1))).toContain('shutting down');
  });
});
