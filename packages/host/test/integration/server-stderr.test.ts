// A tool's stderr is data, not Ferry's log: with no sink configured the host writes each line as
// a JSON record labelled with server and user, control characters escaped (no forged newlines,
// colours or cursor moves), cut at 2 KiB, at most 50 lines/s (bursts of 200) per server and user,
// and a count of what it dropped. The flood example forges 20,000 lines that look like Ferry's
// own pino records, plus ANSI escapes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FloodHost, openFloodHost } from '../support/flood-host.js';

const FORGED = '{"level":50,"time":1,"msg":"forged"}';
const ANSI = '\u001b[31mred alert\u001b[0m\r{"level":60,"msg":"also forged"}\u2028next';
const REPEAT = 10_000;

let env: FloodHost | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await env?.close();
  env = undefined;
});

interface Record_ {
  level: number;
  server?: string;
  user?: string;
  stream?: string;
  line?: string;
  truncated?: number;
  dropped?: number;
  msg: string;
}

describe("a local server's stderr", () => {
  it('is logged as labelled, escaped, rate-limited records with a count of dropped lines', async () => {
    const written: string[] = [];
    let sawSummary!: () => void;
    const summary = new Promise<void>((resolve) => {
      sawSummary = resolve;
    });
    // Everything Ferry writes on its own stderr during the test.
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      written.push(text);
      if (text.includes('"dropped"')) sawSummary();
      return true;
    });
    env = await openFloodHost({});
    const started = Date.now();
    const { response } = await env.call('stderr_flood', { lines: [FORGED, ANSI], repeat: REPEAT });
    expect(response.status).toBe('finished');
    await summary;
    // Closing the pool ends the stream: the last count of dropped lines is written then.
    await env.close();
    env = undefined;
    const elapsedSeconds = (Date.now() - started) / 1000;

    const output = written.join('');
    // Every line of output is one JSON record: the tool could not start a line of its own.
    const lines = output.split('\n').filter((line) => line !== '');
    const records = lines.map((line) => JSON.parse(line) as Record_);
    const mine = records.filter((r) => r.server === 'flood');
    expect(mine.length).toBe(records.length);
    for (const record of mine)
      expect(record).toMatchObject({ server: 'flood', user: 'alice', stream: 'stderr' });

    // No raw control characters anywhere: colours, carriage returns and line separators escaped.
    expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/);
    expect(output).not.toContain('"level":50,"time":1');
    const lineRecords = mine.filter((r) => r.line !== undefined);
    expect(lineRecords[0]?.line).toBe(FORGED);
    expect(lineRecords[1]?.line).toBe(
      '\\x1b[31mred alert\\x1b[0m\\r{"level":60,"msg":"also forged"}\\u2028next',
    );
    expect(lineRecords.every((r) => r.level === 30)).toBe(true);

    // Bounded by the rate limit, and nothing unaccounted for.
    const summaries = mine.filter((r) => r.dropped !== undefined);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries[0]?.msg).toMatch(/^\d+ stderr lines of server flood \(user alice\) dropped$/);
    const dropped = summaries.reduce((sum, r) => sum + (r.dropped ?? 0), 0);
    expect(lineRecords.length + dropped).toBe(2 * REPEAT);
    expect(lineRecords.length).toBeLessThanOrEqual(200 + Math.ceil(50 * elapsedSeconds));
  });

  it('cuts a line at 2 KiB and says how long it was', async () => {
    const records: unknown[] = [];
    env = await openFloodHost({ stderrLog: (record: unknown) => records.push(record) });
    await env.call('stderr_flood', { lines: ['y'.repeat(100_000), 'short'], repeat: 1 });
    await env.close();
    env = undefined;
    expect(records).toEqual([
      { server: 'flood', user: 'alice', stream: 'stderr', line: 'y'.repeat(2048), truncated: 100_000 },
      { server: 'flood', user: 'alice', stream: 'stderr', line: 'short' },
    ]);
  });
});
