// GET /healthz and GET /readyz over real HTTP: no user needed; readiness 200 on a healthy app and
// 503 naming the failing check when the blob directory is replaced by a file, the catalog's
// database is closed, the sandbox is required but unavailable, a check hangs, or the app closes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@ferry/host';
import { loadStorageConfig, openStorage } from '@ferry/storage';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { createReadiness, storageChecks } from '../../src/ops/readiness.js';
import { unknownStatus } from '../../src/status.js';
import { http, PROXY_AUTH, startTestApp } from '../support/start-app.js';

interface ReadyJson {
  status: string;
  checks: Record<string, { ok: boolean; ms: number; error?: string }>;
}

const withStorageChecks = {
  deps: ({ storage }: { storage: Parameters<typeof storageChecks>[0] }) => ({
    readiness: storageChecks(storage),
  }),
};

describe('GET /healthz', () => {
  it('answers 200 without a user, even in proxy mode', async () => {
    const t = await startTestApp({ servers: {}, app: { auth: PROXY_AUTH } });
    try {
      const result = await http(t.url, '/healthz');
      expect(result.status).toBe(200);
      expect(result.json()).toEqual({ status: 'ok' });
      expect(result.headers['cache-control']).toBe('no-store');
      // The API itself still wants the proxy.
      expect((await http(t.url, '/api/status')).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});

describe('GET /readyz', () => {
  it('is 200 with every check ok on a healthy app, without a user', async () => {
    const t = await startTestApp({ servers: {}, app: { auth: PROXY_AUTH }, ...withStorageChecks });
    try {
      const result = await http(t.url, '/readyz');
      expect(result.status, result.text).toBe(200);
      const body = result.json<ReadyJson>();
      expect(body.status).toBe('ready');
      expect(Object.keys(body.checks).sort()).toEqual(['blobs', 'catalog', 'sandbox', 'shutdown']);
      for (const check of Object.values(body.checks)) {
        expect(check.ok).toBe(true);
        expect(check.ms).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await t.close();
    }
  });

  it('is 503 naming the blob store when its directory is replaced by a file', async () => {
    const t = await startTestApp({ servers: {}, ...withStorageChecks });
    try {
      expect((await http(t.url, '/readyz')).status).toBe(200);
      const blobs = join(t.dir, 'data', 'blobs');
      await rm(blobs, { recursive: true, force: true });
      await writeFile(blobs, 'not a directory');
      const result = await http(t.url, '/readyz');
      expect(result.status).toBe(503);
      const body = result.json<ReadyJson>();
      expect(body.status).toBe('not_ready');
      expect(body.checks.blobs).toMatchObject({ ok: false, error: expect.stringMatching(/EEXIST|ENOTDIR/) });
      expect(body.checks.catalog?.ok).toBe(true);
      // Host paths are replaced by their label, as everywhere else.
      expect(result.text).not.toContain(t.dir);
      // Through a proxy (not an operator): which check failed, not why.
      const forwarded = await http(t.url, '/readyz', { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(forwarded.status).toBe(503);
      expect(forwarded.json<ReadyJson>().checks.blobs).toEqual({
        ok: false,
        ms: expect.any(Number),
        error: 'failed',
      });
    } finally {
      await t.close();
    }
  });

  it('is 503 naming the catalog when its database is closed', async () => {
    const t = await startTestApp({ servers: {}, ...withStorageChecks });
    try {
      await t.storage.files.close();
      const result = await http(t.url, '/readyz');
      expect(result.status).toBe(503);
      const body = result.json<ReadyJson>();
      expect(body.checks.catalog?.ok).toBe(false);
      expect(body.checks.catalog?.error).toBeTruthy();
      expect(body.checks.blobs?.ok).toBe(true);
    } finally {
      await t.close().catch(() => undefined);
    }
  });

  it('is 503 when the sandbox is required but unavailable', async () => {
    const base = unknownStatus();
    const status = {
      ...base,
      sandbox: {
        ...base.sandbox,
        mode: 'required' as const,
        effectiveMode: 'refused' as const,
        reason: 'bwrap: No permissions to create new namespace',
      },
    };
    const t = await startTestApp({ servers: {}, deps: () => ({ status }) });
    try {
      const result = await http(t.url, '/readyz');
      expect(result.status).toBe(503);
      expect(result.json<ReadyJson>().checks.sandbox).toMatchObject({
        ok: false,
        error: expect.stringContaining('No permissions to create new namespace'),
      });
    } finally {
      await t.close();
    }
  });

  it('is 503 while the app closes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ferry-ops-'));
    const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'data') }, env: {} }));
    const host = createHost({
      config: { servers: {} },
      files: storage.files,
      workspacesRoot: join(dir, 'workspaces'),
      downloadUrl: () => '',
    });
    const app = buildApp({
      files: storage.files,
      host,
      config: defaultAppConfig(),
      readiness: storageChecks(storage),
    });
    let url = '';
    let during: number | undefined;
    // preClose runs once closing has begun, before the server stops listening.
    app.addHook('preClose', async () => {
      during = (await http(url, '/readyz')).status;
    });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      expect((await http(url, '/readyz')).status).toBe(200);
      await app.close();
      expect(during).toBe(503);
    } finally {
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('readiness checks', () => {
  it('bound each check by the timeout: a hung check fails in time, the others still answer', async () => {
    let aborted: unknown;
    const readiness = createReadiness(
      [
        { name: 'fine', check: async () => {} },
        {
          name: 'hung',
          check: (signal) =>
            new Promise<void>(() => {
              signal.addEventListener('abort', () => {
                aborted = signal.reason;
              });
            }),
        },
      ],
      { timeoutMs: 100 },
    );
    const started = performance.now();
    const report = await readiness.run();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(report.ready).toBe(false);
    expect(report.checks.fine).toMatchObject({ ok: true });
    expect(report.checks.hung).toMatchObject({ ok: false, error: 'no answer within 100 ms' });
    expect(aborted).toBeInstanceOf(Error);
  });

  it('take registrations: a part that comes to matter adds its own check (as Redis will)', async () => {
    const readiness = createReadiness();
    expect(await readiness.run()).toEqual({ ready: true, checks: {} });
    readiness.register({
      name: 'redis',
      check: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6390');
      },
    });
    const report = await readiness.run();
    expect(report.ready).toBe(false);
    expect(report.checks.redis).toMatchObject({ ok: false, error: 'connect ECONNREFUSED 127.0.0.1:6390' });
  });
});
