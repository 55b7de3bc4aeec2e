// ferry_sandbox_refusals_total: a host whose launcher refuses local servers (as the bubblewrap
// launcher does in mode `required` without a usable sandbox) fails calls and tool lists with
// E_SANDBOX_UNAVAILABLE, and each refusal is counted for its server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { createHost, type Host } from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { exampleServers, http, settledCall } from '../support/start-app.js';
import { sampleOf } from './prom-text.js';

let dir: string;
let storage: OpenedStorage;
let host: Host;
let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-refusals-'));
  storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'data') }, env: {} }));
  const { slow } = await exampleServers();
  host = createHost({
    config: { servers: { slow } },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: () => '',
    launcher: () => {
      throw new FerryError('E_SANDBOX_UNAVAILABLE', 'bubblewrap cannot create a user namespace', {
        server: 'slow',
      });
    },
  });
  app = buildApp({ files: storage.files, host, config: defaultAppConfig() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await app?.close();
  await host?.close();
  await storage?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox refusals', () => {
  it('are counted per server, from calls and from tool lists', async () => {
    const started = await http(url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'slow', tool: 'slow_task', arguments: { seconds: 0, steps: 1 } }),
    });
    expect(started.status, started.text).toBe(202);
    const { callId } = started.json<{ callId: string }>();
    const detail = await settledCall<{
      status: string;
      response: { forUi: { error?: { meta_data: { error_code: string } } } };
    }>(url, callId);
    expect(detail.status).toBe('failed');
    expect(detail.response.forUi.error?.meta_data.error_code).toBe('E_SANDBOX_UNAVAILABLE');
    const tools = await http(url, '/api/servers/slow/tools');
    expect(tools.status).toBe(503);

    const text = (await http(url, '/metrics')).text;
    expect(sampleOf(text, 'ferry_sandbox_refusals_total', { server: 'slow' })).toBe(2);
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 'slow', tool: 'slow_task', outcome: 'failed' }),
    ).toBe(1);
  });
});
