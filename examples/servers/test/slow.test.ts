import { useExampleServer } from '@ferry/test-helpers/example-server-suite';
import {
  connectHttp,
  connectStdio,
  isAlive,
  payloadOf,
  startHttp,
  waitUntil,
} from '@ferry/test-helpers/example-servers';
import { describe, expect, it } from 'vitest';

type Progress = { progress: number; total?: number; message?: string };

/** How long a test waits for an answer that must not come. */
const SILENCE_MS = 1200;

describe.each(['stdio', 'http'] as const)('slow server over %s', (transport) => {
  const server = useExampleServer('slow', transport);

  it('reports progress after each step, in order, then completes', async () => {
    const updates: Progress[] = [];
    const started = Date.now();
    const result = await server.client.callTool(
      { name: 'slow_task', arguments: { seconds: 0.6, steps: 4 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    const expected = [1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i}/4` }));
    // The server writes all four before the result, but the SDK client may drop the last one when
    // it arrives in the same read as the response: it dispatches notifications a microtask late
    // and retires the progress handler on the response (modelcontextprotocol/typescript-sdk#2580).
    // Every notification that does arrive must be in order, and only the final one may be missing.
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates).toEqual(expected.slice(0, updates.length));
    expect(payloadOf(result).results).toEqual({ status: 'completed', steps: 4, seconds: 0.6 });
  });

  it('sends no progress when the client asked for none', async () => {
    const result = await server.client.callTool({ name: 'slow_task', arguments: { seconds: 0, steps: 2 } });
    expect(payloadOf(result).results).toMatchObject({ status: 'completed' });
  });

  it('lets the client cancel a call and keeps serving', async () => {
    const abort = new AbortController();
    const updates: Progress[] = [];
    const call = server.client.callTool(
      { name: 'slow_task', arguments: { seconds: 10, steps: 100 } },
      {
        signal: abort.signal,
        onprogress: (update) => {
          updates.push(update);
          if (update.progress === 2) abort.abort();
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeLessThan(10);
    const after = await server.client.callTool({ name: 'slow_task', arguments: { seconds: 0, steps: 1 } });
    expect(payloadOf(after).results).toMatchObject({ status: 'completed' });
  });

  it('hang neither answers nor reports progress', async () => {
    const updates: Progress[] = [];
    const started = Date.now();
    await expect(
      server.client.callTool(
        { name: 'hang', arguments: {} },
        { timeout: SILENCE_MS, onprogress: (update) => updates.push(update) },
      ),
    ).rejects.toThrow(/timed out/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SILENCE_MS - 50);
    expect(updates).toEqual([]);
  });

  it('hang with seconds answers late, still without progress', async () => {
    const updates: Progress[] = [];
    const result = await server.client.callTool(
      { name: 'hang', arguments: { seconds: 0.3 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(payloadOf(result).results).toEqual({ status: 'answered late', seconds: 0.3 });
    expect(updates).toEqual([]);
  });

  it('flaky fails `failures` times per key with a retryable envelope, then succeeds', async () => {
    const key = `k-${transport}-${Date.now()}`;
    const call = (args: Record<string, unknown>) =>
      server.client.callTool({ name: 'flaky', arguments: args });
    for (const attempt of [1, 2]) {
      const failed = await call({ key, failures: 2 });
      expect(failed.isError).toBe(true);
      expect(payloadOf(failed)).toEqual({
        results: { error: `Upstream busy (failure ${attempt} of 2)` },
        meta_data: {
          is_error: true,
          reason: 'TransientFailure',
          error_code: 'E_UPSTREAM_BUSY',
          details: { attempt, suggestion: 'Try again' },
          retryable: true,
        },
      });
    }
    const ok = await call({ key, failures: 2 });
    expect(ok.isError).toBeFalsy();
    expect(payloadOf(ok)).toEqual({
      results: { status: 'ok', attempt: 3 },
      meta_data: { key, attempt: 3, failed_before: 2 },
      retryable: true,
    });
    // Another key counts on its own; `retryable: false` says so in the envelope.
    const other = await call({ key: `${key}-b`, retryable: false });
    expect((payloadOf(other).meta_data as { retryable: boolean }).retryable).toBe(false);
  });

  if (transport === 'stdio') {
    it('a hanging server process ends when the host closes the transport', async () => {
      const own = await connectStdio('slow', server.root);
      const pid = own.transport.pid as number;
      expect(isAlive(pid)).toBe(true);
      const call = own.client.callTool({ name: 'hang', arguments: {} }, { timeout: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await own.close();
      await expect(call).rejects.toThrow();
      await waitUntil(() => !isAlive(pid));
    });

    it('crash exits the process in the middle of the call', async () => {
      const own = await connectStdio('slow', server.root);
      const pid = own.transport.pid as number;
      await expect(
        own.client.callTool({ name: 'crash', arguments: {} }, { timeout: 10_000 }),
      ).rejects.toThrow();
      await waitUntil(() => !isAlive(pid));
      expect(own.stderr()).toContain('crash: exiting with status 1');
      await own.close();
    });
  } else {
    it('crash exits the process with status 1 in the middle of the call', async () => {
      const own = await startHttp('slow', server.root);
      const connection = await connectHttp(own.url);
      await expect(
        connection.client.callTool({ name: 'crash', arguments: {} }, { timeout: 10_000 }),
      ).rejects.toThrow();
      expect(await own.exited).toBe(1);
      await connection.close().catch(() => {});
    });
  }
});
