// Tool results far larger than a model or a browser can use, from a real server over stdio (the
// flood example streams them to stdout as one JSON-RPC line). Under maxResultBytes they are read
// and scrubbed for the model in linear time; over it the line is dropped as it arrives (never
// held), the call fails with E_RESULT_TOO_LARGE naming the limit, and the server keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FloodHost, failureOf, openFloodHost } from '../support/flood-host.js';

const MIB = 1024 * 1024;

/** The largest resident set seen while `action` runs, sampled every few milliseconds. */
async function peakRss<T>(action: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  try {
    const result = await action();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, before, peak };
  } finally {
    clearInterval(timer);
  }
}

describe('results under the default limit (64 MiB)', () => {
  let env: FloodHost;
  beforeAll(async () => {
    env = await openFloodHost();
  });
  afterAll(() => env?.close());

  it('a 10 MiB base64 result is read, and the model sees it summarized instead of the bytes', async () => {
    const { response } = await env.call('big_text', { mib: 10, fill: 'base64' });
    expect(failureOf(response)).toMatchObject({ status: 'finished' });
    expect(response.forModel.results).toBe(`[base64, ${10 * MIB} characters omitted]`);
  });

  it('a 300 MiB result fails with E_RESULT_TOO_LARGE; Ferry never holds it; the server keeps serving', async () => {
    const pid = (await env.host.pool.get('flood', 'alice')).pid;
    const { result, before, peak } = await peakRss(() => env.call('big_text', { mib: 300, fill: 'x' }));
    expect(failureOf(result.response)).toMatchObject({
      status: 'failed',
      code: 'E_RESULT_TOO_LARGE',
      retryable: false,
      details: { limit_bytes: 64 * MIB },
    });
    expect(failureOf(result.response).message).toMatch(/over the 64 MiB limit \(maxResultBytes\)/);
    // At most the part read before the limit was reached is held, then dropped.
    expect(peak - before).toBeLessThan(2 * 64 * MIB + 64 * MIB);
    const { response } = await env.call('echo', { text: 'still here' });
    expect(response.status).toBe('finished');
    expect(response.forModel.results).toMatchObject({ text: 'still here', pid });
  }, 120_000);
});

describe('results over a configured limit (32 MiB)', () => {
  let env: FloodHost;
  beforeAll(async () => {
    env = await openFloodHost({ onStderr: () => {}, maxResultBytes: 32 * MIB });
  });
  afterAll(() => env?.close());

  it.each([
    ['after the result, as the TypeScript SDK writes it', false],
    ['before the result', true],
  ])(
    'a 50 MiB result with its id %s fails with E_RESULT_TOO_LARGE naming the limit',
    async (_, idFirst) => {
      const pid = (await env.host.pool.get('flood', 'alice')).pid;
      const { response } = await env.call('big_text', { mib: 50, fill: 'base64', idFirst });
      expect(failureOf(response)).toMatchObject({
        status: 'failed',
        code: 'E_RESULT_TOO_LARGE',
        retryable: false,
        details: { limit_bytes: 32 * MIB },
      });
      expect(failureOf(response).message).toMatch(/over the 32 MiB limit \(maxResultBytes\)/);
      expect(response.forModel.error?.code).toBe('E_RESULT_TOO_LARGE');
      // Same process: only the one line was dropped.
      const again = await env.call('echo', { text: 'next' });
      expect(again.response.status).toBe('finished');
      expect(again.response.forModel.results).toMatchObject({ pid });
    },
    60_000,
  );
});
