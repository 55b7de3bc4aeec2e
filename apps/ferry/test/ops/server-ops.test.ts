// startServer wires the operator's endpoints: /readyz checks the catalog, the blob store and the
// sandbox of the running Ferry; /metrics answers on loopback.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { http } from '../support/start-app.js';
import { sampleOf } from './prom-text.js';

let dir: string;
let server: RunningServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-server-ops-'));
  server = await startServer({ cwd: dir, env: {}, port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a started Ferry', () => {
  it('is alive and ready, with the catalog, blob store and sandbox checked', async () => {
    expect((await http(server.url, '/healthz')).status).toBe(200);
    const ready = await http(server.url, '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json<{ checks: Record<string, { ok: boolean }> }>().checks).toEqual({
      catalog: { ok: true, ms: expect.any(Number) },
      blobs: { ok: true, ms: expect.any(Number) },
      sandbox: { ok: true, ms: expect.any(Number) },
      shutdown: { ok: true, ms: expect.any(Number) },
    });
  });

  it('serves its metrics on loopback', async () => {
    const result = await http(server.url, '/metrics');
    expect(result.status).toBe(200);
    expect(sampleOf(result.text, 'ferry_upload_bytes_total')).toBe(0);
    expect(sampleOf(result.text, 'ferry_active_servers', { kind: 'local' })).toBe(0);
  });
});
