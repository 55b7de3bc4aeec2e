import {
  type HttpServerProcess,
  payloadOf,
  serverCommand,
  startHttp,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressUpdate, ToolConnection } from '../../src/connections/connection.js';
import { callWithWatchdog } from '../../src/pipeline/call-with-watchdog.js';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import { never, poolPerTest } from '../support/pool-per-test.js';

// Ferry's pool against the tasks example server, over stdio and Streamable HTTP: a tools/call
// answered with a task is followed (notifications/tasks on a subscriptions/listen, tasks/get as the
// fallback) to its end and looks like any call to the pipeline.

const start = poolPerTest();

describe.each(['stdio', 'http'] as const)('a task over %s', (kind) => {
  let root: TempDir;
  let http: HttpServerProcess | undefined;
  beforeAll(async () => {
    root = await tempDir();
    if (kind === 'http') http = await startHttp('tasks', root.path);
  });
  afterAll(async () => {
    await http?.stop();
    await root?.cleanup();
  });

  const config = (): ServerConfigInput =>
    http
      ? { transport: 'http', url: http.url.href }
      : { transport: 'stdio', ...serverCommand('tasks'), env: { FERRY_WORKSPACE_ROOT: root.path } };
  const connect = () => start({ tasks: config() }).pool.get('tasks', 'alice');
  const record = async (connection: ToolConnection, taskId?: string) =>
    payloadOf(
      await connection.callTool(
        { name: 'task_record', arguments: taskId ? { task_id: taskId } : {} },
        { signal: never() },
      ),
    ).results as {
      task_id: string;
      status: string;
      gets: number;
      cancels: number;
      listens: number;
      subscriptions: number;
      notifications: number;
    };
  /** The record once `done` holds, checked every 50 ms for at most 5 s. */
  const recordUntil = async (
    connection: ToolConnection,
    done: (seen: Awaited<ReturnType<typeof record>>) => boolean,
  ) => {
    let seen = await record(connection);
    for (let i = 0; i < 100 && !done(seen); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await record(connection);
    }
    return seen;
  };

  it('is followed to its result, each step reported as progress', async () => {
    const connection = await connect();
    const updates: ProgressUpdate[] = [];
    const result = await connection.callTool(
      { name: 'render_report', arguments: { username: 'alice', title: 'Q3', seconds: 0.8, steps: 4 } },
      { signal: never(), onProgress: (update) => updates.push(update) },
    );
    expect(payloadOf(result).results).toEqual({ status: 'completed', title: 'Q3', steps: 4 });
    expect(payloadOf(result).artifacts).toEqual([expect.objectContaining({ name: 'task-report.md' })]);
    const messages = updates.map((update) => update.message);
    expect(messages[0]).toBe('rendering');
    expect(messages.at(-1)).toBe('done');
    expect(messages.filter((message) => message?.startsWith('step ')).length).toBeGreaterThanOrEqual(2);
    // Counted up, one per change the client saw.
    expect(updates.map((update) => update.progress)).toEqual(updates.map((_, i) => i + 1));
    const seen = await record(connection);
    expect(seen.status).toBe('completed');
    // The steps came as notifications/tasks on the one subscription, closed with the task.
    expect(seen).toMatchObject({ listens: 1, subscriptions: 0 });
    expect(seen.notifications).toBeGreaterThanOrEqual(5);
  });

  it('ends on the notification of the end, long before the next poll', async () => {
    const connection = await connect();
    const started = Date.now();
    const result = await connection.callTool(
      { name: 'task_scenario', arguments: { scenario: 'silent', seconds: 1, poll_ms: 10_000 } },
      { signal: never() },
    );
    const elapsed = Date.now() - started;
    expect(result.content).toEqual([{ type: 'text', text: 'silent for 1s' }]);
    // Polling alone would have asked at 5 s (the longest interval Ferry accepts).
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(2500);
    const seen = await record(connection);
    expect(seen).toMatchObject({ status: 'completed', listens: 1, subscriptions: 0, gets: 0 });
    expect(seen.notifications).toBeGreaterThanOrEqual(2);
  });

  it.each(['refuse', 'ignore'] as const)(
    'polls to the end when the server does not serve the subscription (%s)',
    async (listen) => {
      const connection = await connect();
      const result = await connection.callTool(
        { name: 'task_scenario', arguments: { scenario: 'silent', seconds: 0.6, listen } },
        { signal: never() },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'silent for 0.6s' }]);
      const seen = await record(connection);
      expect(seen).toMatchObject({ status: 'completed', listens: 0, notifications: 0 });
      expect(seen.gets).toBeGreaterThanOrEqual(2);
    },
  );

  it('closes the subscription when the call is cancelled, even if the task works on', async () => {
    const connection = await connect();
    const abort = new AbortController();
    const call = connection.callTool(
      { name: 'task_scenario', arguments: { scenario: 'stubborn', seconds: 20 } },
      { signal: abort.signal },
    );
    const open = await recordUntil(connection, (seen) => seen.subscriptions === 1);
    expect(open).toMatchObject({ status: 'working', listens: 1, subscriptions: 1 });
    abort.abort(new Error('stopped by the user'));
    await expect(call).rejects.toThrow('stopped by the user');
    const closed = await recordUntil(connection, (seen) => seen.subscriptions === 0 && seen.cancels === 1);
    // Still working (cancelling is cooperative): the subscription ended because Ferry closed it.
    expect(closed).toMatchObject({ status: 'working', subscriptions: 0, cancels: 1, listens: 1 });
  });

  it('sends tasks/cancel when the call is aborted', async () => {
    const connection = await connect();
    const abort = new AbortController();
    const call = connection.callTool(
      { name: 'render_report', arguments: { username: 'alice', title: 'Long', seconds: 60, steps: 60 } },
      {
        signal: abort.signal,
        onProgress: (update) => {
          if (update.message === 'step 1/60') abort.abort(new Error('stopped by the user'));
        },
      },
    );
    await expect(call).rejects.toThrow('stopped by the user');
    let seen = await record(connection);
    for (let i = 0; i < 50 && seen.status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await record(connection);
    }
    expect(seen).toMatchObject({ status: 'cancelled', cancels: 1 });
  });

  it('throws the error of a failed task, and says when the server cancelled it', async () => {
    const connection = await connect();
    const scenario = (name: string) =>
      connection.callTool({ name: 'task_scenario', arguments: { scenario: name } }, { signal: never() });
    await expect(scenario('fail')).rejects.toThrow('render failed: the renderer crashed');
    await expect(scenario('cancelled')).rejects.toThrow(
      'The server cancelled the task: cancelled by the server',
    );
  });

  it("asks the call's own question handler and answers with tasks/update", async () => {
    const connection = await connect();
    const asked: string[] = [];
    const result: CallToolResult = await connection.callTool(
      { name: 'task_scenario', arguments: { scenario: 'ask' } },
      {
        signal: never(),
        onElicitation: async (request) => {
          asked.push(request.message);
          expect(request).toMatchObject({
            requestedSchema: { properties: { confirm: { type: 'boolean' } } },
          });
          return { action: 'accept', content: { confirm: true } };
        },
      },
    );
    expect(asked).toEqual(['Publish the report?']);
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ action: 'accept', content: { confirm: true } }) },
    ]);
  });

  describe('under the watchdog', () => {
    const timeouts = { noticeSeconds: [0.3, 0.5], timeoutSeconds: 0.8, hardCapSeconds: 30 };

    it('lets a task run past the idle limit as long as its status moves', async () => {
      const connection = await connect();
      const notices: string[] = [];
      const outcome = await callWithWatchdog({
        connection,
        tool: 'render_report',
        arguments: { username: 'alice', title: 'Steady', seconds: 2.4, steps: 12 },
        timeouts,
        onNotice: (notice) => notices.push(notice.kind),
      });
      expect(outcome.kind).toBe('result');
      expect(outcome.kind === 'result' && outcome.lastProgress).toBe('done');
      expect(notices).not.toContain('timeout');
    });

    it('times out a task that goes silent, and cancels it on the server', async () => {
      const connection = await connect();
      const started = Date.now();
      const outcome = await callWithWatchdog({
        connection,
        tool: 'task_scenario',
        arguments: { scenario: 'silent', seconds: 20 },
        timeouts,
      });
      expect(outcome).toMatchObject({ kind: 'timeout', limit: 'idle', lastProgress: 'starting' });
      expect(Date.now() - started).toBeLessThan(5000);
      if (kind === 'http') {
        // A remote server is not killed: the cancel is what stops its work.
        const fresh = await connect();
        let seen = await record(fresh);
        for (let i = 0; i < 50 && seen.cancels === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          seen = await record(fresh);
        }
        expect(seen).toMatchObject({ cancels: 1 });
      }
    });
  });
});
