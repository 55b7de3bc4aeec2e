// Timing behaviours for the host's watchdog (v2.1 §11): a slow tool that reports progress (each
// report resets the 30 s timeout), the demo users see in ferry.config.json. With `--test-tools`
// (test/ferry.test-config.json) also a tool that hangs silently (the host must cancel it and, for
// a local server, kill the process), one that crashes its process in the middle of a call, and one
// that fails a given number of times before it works (a transient failure, v2.1 `retryable`):
// misbehaviour for the tests, not something to offer users.
//
//   node --import tsx --conditions=ferry-source examples/servers/src/slow.ts [--test-tools] [--http <port>]
import { isMainModule, reportProgress, runServer, v21Error, v21Result } from '@ferry/server-kit';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sleep } from './lib/sleep.js';
import { TEST_TOOLS_FLAG } from './lib/test-tools.js';

export const MAX_SLOW_SECONDS = 3600;

// The flaky tool's attempts per key, in this process (served over HTTP, each request gets its own
// McpServer; under Ferry each user's server is its own process).
const attempts = new Map<string, number>();

export function createSlowServer(options: { testTools?: boolean } = {}): McpServer {
  const server = new McpServer({ name: 'ferry-example-slow', version: '0.1.0' });
  server.registerTool(
    'slow_task',
    {
      title: 'Slow task',
      description:
        'Works for `seconds` seconds in `steps` equal steps, reporting progress ("step i/n") after each step. Stops early when cancelled.',
      inputSchema: z.object({
        seconds: z.number().min(0).max(MAX_SLOW_SECONDS).describe('Total duration'),
        steps: z.number().int().min(1).max(10_000).describe('Number of steps, one progress report each'),
      }),
    },
    async ({ seconds, steps }, ctx) => {
      const started = Date.now();
      // Over stdio notifications/cancelled aborts this signal; served statelessly over HTTP it
      // reaches another per-request instance, and only the client closing the request aborts it.
      const signal = ctx.mcpReq.signal;
      for (let step = 1; step <= steps; step++) {
        await sleep((seconds * 1000) / steps, signal);
        if (signal.aborted) break;
        await reportProgress(ctx, step, steps, `step ${step}/${steps}`);
      }
      return v21Result({
        results: { status: signal.aborted ? 'cancelled' : 'completed', steps, seconds },
        metaData: { elapsed_ms: Date.now() - started },
      });
    },
  );
  if (options.testTools) registerTestTools(server);
  return server;
}

function registerTestTools(server: McpServer): void {
  server.registerTool(
    'hang',
    {
      title: 'Hang',
      description:
        'Never answers and never reports progress, ignoring cancellation, until the process is killed. With `seconds`, answers after that long instead (still without progress).',
      inputSchema: z.object({
        seconds: z.number().min(0).max(MAX_SLOW_SECONDS).optional().describe('Answer after this long'),
      }),
    },
    async ({ seconds }) => {
      // The abort signal is ignored on purpose: this models a tool stuck in a blocking call, which
      // only killing the process stops.
      if (seconds === undefined) return new Promise<CallToolResult>(() => {});
      await sleep(seconds * 1000);
      return v21Result({ results: { status: 'answered late', seconds } });
    },
  );
  server.registerTool(
    'crash',
    {
      title: 'Crash',
      description: 'Makes the server process exit with status 1 while the call is in flight.',
      inputSchema: z.object({}),
    },
    async () => {
      console.error('crash: exiting with status 1 in the middle of a call');
      // Exit after this handler has returned its pending promise, so the call is truly in flight.
      setTimeout(() => process.exit(1), 10);
      return new Promise<CallToolResult>(() => {});
    },
  );
  server.registerTool(
    'flaky',
    {
      title: 'Flaky',
      description:
        'Fails the first `failures` times it is called with this `key` (a v2.1 §12 error envelope, `retryable` as given), then succeeds, reporting the attempt in meta_data.',
      inputSchema: z.object({
        key: z.string().min(1).max(200).describe('Attempts are counted per key'),
        failures: z.number().int().min(0).max(100).default(1).describe('How many calls fail first'),
        retryable: z.boolean().default(true).describe('Whether the failures say they may be retried'),
      }),
    },
    async ({ key, failures, retryable }) => {
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      if (attempt <= failures) {
        return v21Error({
          results: { error: `Upstream busy (failure ${attempt} of ${failures})` },
          meta_data: {
            is_error: true,
            reason: 'TransientFailure',
            error_code: 'E_UPSTREAM_BUSY',
            details: { attempt, suggestion: retryable ? 'Try again' : 'Do not try again' },
            retryable,
          },
        });
      }
      return v21Result({
        results: { status: 'ok', attempt },
        metaData: { key, attempt, failed_before: attempt - 1 },
        retryable: true,
      });
    },
  );
}

if (isMainModule(import.meta.url)) {
  const testTools = process.argv.slice(2).includes(TEST_TOOLS_FLAG);
  await runServer(() => createSlowServer({ testTools }), { name: 'slow' });
}
