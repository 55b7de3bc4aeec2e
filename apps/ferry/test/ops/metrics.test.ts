// GET /metrics over real HTTP: tool calls through the API against the example servers counted by
// server, tool and outcome (a timeout among them), bytes uploaded and downloaded, the pool's live
// servers, process metrics; and who may read it (loopback, not through a proxy, or the token).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleServers,
  http,
  settledCall,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';
import { sampleOf } from './prom-text.js';

const TOKEN = 'metrics-token-0123456789';

let t: TestApp;
beforeAll(async () => {
  const servers = await exampleServers();
  // A second of silence is a timeout here, so `hang` times out quickly.
  const slow = { ...(servers.slow as Record<string, unknown>), timeouts: { timeoutSeconds: 1 } };
  t = await startTestApp({ servers: { ...servers, slow }, app: { metrics: { token: TOKEN } } });
}, 60_000);
afterAll(async () => t?.close());

async function call(server: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const started = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server, tool, arguments: args }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  return (await settledCall<{ status: string }>(t.url, callId)).status;
}

async function scrape(headers: Record<string, string> = {}): Promise<string> {
  const result = await http(t.url, '/metrics', { headers });
  expect(result.status, result.text).toBe(200);
  expect(result.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return result.text;
}

describe('GET /metrics', () => {
  it('counts a finished call by server, tool and outcome, with its duration', async () => {
    expect(
      sampleOf(await scrape(), 'ferry_tool_calls_total', {
        server: 'slow',
        tool: 'slow_task',
        outcome: 'finished',
      }),
    ).toBeUndefined();
    expect(await call('slow', 'slow_task', { seconds: 0.05, steps: 1 })).toBe('finished');
    const text = await scrape();
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 'slow', tool: 'slow_task', outcome: 'finished' }),
    ).toBe(1);
    expect(
      sampleOf(text, 'ferry_tool_call_duration_seconds_count', { server: 'slow', tool: 'slow_task' }),
    ).toBe(1);
    const seconds = sampleOf(text, 'ferry_tool_call_duration_seconds_sum', {
      server: 'slow',
      tool: 'slow_task',
    });
    expect(seconds).toBeGreaterThanOrEqual(0.05);
    expect(seconds).toBeLessThan(30);
    // The local server stays up for its idle time after the call (with the `start: "session"`
    // example servers the session started).
    expect(sampleOf(text, 'ferry_active_servers', { kind: 'local' })).toBeGreaterThanOrEqual(1);
    expect(sampleOf(text, 'ferry_active_servers', { kind: 'remote' })).toBe(0);
    await t.host.pool.closeUser('dev');
    expect(sampleOf(await scrape(), 'ferry_active_servers', { kind: 'local' })).toBe(0);
    expect(sampleOf(text, 'ferry_server_starts_waiting')).toBe(0);
    expect(sampleOf(text, 'ferry_calls_running')).toBe(0);
    // prom-client's process metrics, on this app's registry.
    expect(sampleOf(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('tells a tool error, a timeout and a failure apart', async () => {
    expect(await call('slow', 'flaky', { key: 'metrics-test', failures: 1, retryable: false })).toBe(
      'finished',
    );
    expect(await call('slow', 'hang', {})).toBe('failed');
    expect(await call('slow', 'no_such_tool', {})).toBe('failed');
    const text = await scrape();
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 'slow', tool: 'flaky', outcome: 'tool_error' }),
    ).toBe(1);
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 'slow', tool: 'hang', outcome: 'timed_out' }),
    ).toBe(1);
    expect(sampleOf(text, 'ferry_tool_call_timeouts_total', { server: 'slow' })).toBe(1);
    expect(
      sampleOf(text, 'ferry_tool_calls_total', { server: 'slow', tool: 'no_such_tool', outcome: 'failed' }),
    ).toBe(1);
    expect(sampleOf(text, 'ferry_sandbox_refusals_total', { server: 'slow' })).toBeUndefined();
  }, 30_000);

  it('counts the bytes of an upload and of its download', async () => {
    const before = await scrape();
    const body = Buffer.alloc(300_000, 7);
    const file = await uploadOk(t.url, 'metrics.bin', body);
    const small = await uploadOk(t.url, 'small.txt', 'twelve bytes');
    const after = await scrape();
    const uploaded =
      (sampleOf(after, 'ferry_upload_bytes_total') ?? 0) -
      (sampleOf(before, 'ferry_upload_bytes_total') ?? 0);
    expect(uploaded).toBe(body.length + 12);

    expect((await http(t.url, `/api/files/${file.id}/content`)).body.length).toBe(body.length);
    expect((await http(t.url, `/api/files/${small.id}/content`)).text).toBe('twelve bytes');
    const ranged = await http(t.url, `/api/files/${file.id}/content`, { headers: { range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    const downloaded =
      (sampleOf(await scrape(), 'ferry_download_bytes_total') ?? 0) -
      (sampleOf(after, 'ferry_download_bytes_total') ?? 0);
    expect(downloaded).toBe(body.length + 12 + 100);
  });
});

describe('who may read /metrics', () => {
  it('refuses a request a proxy forwarded, even from loopback, unless it has the token', async () => {
    const forwardedBy: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
    ];
    for (const headers of forwardedBy) {
      const refused = await http(t.url, '/metrics', { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.text).not.toContain('ferry_tool_calls_total');
      expect(refused.json<{ meta_data: { error_code: string } }>().meta_data.error_code).toBe('E_FORBIDDEN');
    }
    await scrape({ 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${TOKEN}` });
    const wrong = await http(t.url, '/metrics', {
      headers: { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.status).toBe(403);
  });

  it('refuses loopback too when metrics.allowFrom is empty, and has a registry per app', async () => {
    const closed = await startTestApp({ servers: {}, app: { metrics: { allowFrom: [] } } });
    try {
      expect((await http(closed.url, '/metrics')).status).toBe(403);
      // Its own counters: the other app's calls are not in them.
      closed.app.ferry.metrics.uploaded(5);
      const own = await closed.app.ferry.metrics.registry.metrics();
      expect(sampleOf(own, 'ferry_upload_bytes_total')).toBe(5);
      expect(
        sampleOf(own, 'ferry_tool_calls_total', { server: 'slow', tool: 'slow_task', outcome: 'finished' }),
      ).toBeUndefined();
    } finally {
      await closed.close();
    }
  });

  it('in proxy mode, refuses what the proxy forwards (its secret or user header marks it)', async () => {
    const proxied = await startTestApp({
      servers: {},
      app: { auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' } },
    });
    try {
      expect((await http(proxied.url, '/metrics')).status).toBe(200);
      expect((await http(proxied.url, '/metrics', { headers: { 'x-forwarded-user': 'alice' } })).status).toBe(
        403,
      );
      expect(
        (
          await http(proxied.url, '/metrics', {
            headers: { 'x-ferry-proxy-secret': 'test-proxy-secret-0123456789' },
          })
        ).status,
      ).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});
