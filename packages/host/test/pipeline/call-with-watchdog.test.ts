// The §11.3 watchdog against a real McpServer over InMemoryTransport, with a manual clock: no
// sleeps, time moves only when the test says so.
import { TIMEOUT_MESSAGE, TIMEOUT_NOTICES } from '@ferry/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  callWithWatchdog,
  DEFAULT_TIMEOUTS,
  type WatchdogNotice,
  type WatchdogOutcome,
  type WatchdogProgress,
  type WatchdogTimeouts,
} from '../../src/pipeline/call-with-watchdog.js';
import { connectInMemory, type TestConnection } from './support/in-memory-connection.js';
import { ManualClock } from './support/manual-clock.js';
import { createTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

let ts: TestServer;
let connection: TestConnection;
let clock: ManualClock;
let notices: WatchdogNotice[];
let progress: WatchdogProgress[];

async function setup(kind: 'local' | 'remote' = 'local') {
  ts = createTestServer('/nonexistent');
  connection = await connectInMemory(ts.server, { kind });
  clock = new ManualClock();
  notices = [];
  progress = [];
}

function start(timeouts: WatchdogTimeouts = { ...DEFAULT_TIMEOUTS }, signal?: AbortSignal) {
  let outcome: WatchdogOutcome | undefined;
  const promise = callWithWatchdog({
    connection,
    tool: 'slow',
    arguments: {},
    timeouts,
    clock,
    signal,
    onNotice: (n) => notices.push(n),
    onProgress: (p) => progress.push(p),
  }).then((o) => {
    outcome = o;
    return o;
  });
  return { promise, done: () => outcome !== undefined };
}

async function sendProgress(p: number, total?: number, message?: string) {
  const before = progress.length;
  await ts.slow.progress(p, total, message);
  await waitFor(() => progress.length > before, 'progress to arrive');
}

beforeEach(() => setup());
afterEach(() => connection.close());

describe('callWithWatchdog', () => {
  it('emits the three notices in order with the exact spec texts, then times out at 30 s', async () => {
    const call = start();
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    clock.advanceSeconds(14.999);
    expect(notices).toEqual([]);
    clock.advanceSeconds(0.001);
    expect(notices.map((n) => n.message)).toEqual([TIMEOUT_NOTICES[0]?.message]);
    clock.advanceSeconds(10);
    expect(notices.map((n) => [n.afterSeconds, n.message])).toEqual([
      [15, 'The tool is taking longer than expected. Please wait...'],
      [20, 'Still processing your request. This may take a few more moments.'],
      [25, 'Processing continues. The tool will timeout in 5 seconds if no progress.'],
    ]);
    expect(call.done()).toBe(false);
    clock.advanceSeconds(5);
    const outcome = await call.promise;
    expect(notices.at(-1)).toEqual({ kind: 'timeout', afterSeconds: 30, message: TIMEOUT_MESSAGE });
    expect(outcome).toMatchObject({ kind: 'timeout', limit: 'idle', seconds: 30 });
    if (outcome.kind !== 'timeout') throw new Error('unreachable');
    expect(outcome.error).toEqual({
      results: { error: 'Tool execution timed out after 30 seconds' },
      meta_data: {
        is_error: true,
        reason: 'ExecutionTimeout',
        error_code: 'E_TIMEOUT',
        details: {
          timeout_seconds: 30,
          last_progress: null,
          suggestion: 'Consider breaking large operations into smaller chunks or using progress reporting',
        },
        retryable: true,
      },
    });
    // The call was cancelled on the wire (the server saw notifications/cancelled) and the local
    // server's process was killed.
    await ts.slow.cancelled;
    expect(connection.kills).toEqual(['timed out after 30s']);
  });

  it('progress resets the clock: notices start over, last_progress is the last message', async () => {
    const call = start();
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    clock.advanceSeconds(20);
    expect(notices).toHaveLength(2);
    await sendProgress(45, 200, 'Processing chunk 45/200');
    expect(progress.at(-1)).toEqual({
      progress: 45,
      total: 200,
      message: 'Processing chunk 45/200',
      percent: 22.5,
    });
    clock.advanceSeconds(29);
    expect(call.done()).toBe(false);
    // 15 and 20 s after the progress, not after the start.
    expect(notices.map((n) => n.afterSeconds)).toEqual([15, 20, 15, 20, 25]);
    await sendProgress(46);
    expect(progress.at(-1)).toEqual({ progress: 46 });
    clock.advanceSeconds(30);
    const outcome = await call.promise;
    expect(outcome).toMatchObject({ kind: 'timeout', limit: 'idle', lastProgress: '46' });
    if (outcome.kind === 'timeout') expect(outcome.error.meta_data.details.last_progress).toBe('46');
  });

  it('the hard cap applies however much progress arrives', async () => {
    const call = start({ noticeSeconds: [1.5, 2, 2.5], timeoutSeconds: 3, hardCapSeconds: 10.5 });
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    for (let i = 1; i <= 4; i++) {
      clock.advanceSeconds(2.5);
      expect(call.done()).toBe(false);
      await sendProgress(i, 10, `step ${i}`);
    }
    expect(notices.filter((n) => n.kind === 'slow')).toHaveLength(12);
    // 10 s in, 0.5 s after the last progress: only the hard cap can end it now.
    clock.advanceSeconds(0.5);
    const outcome = await call.promise;
    expect(outcome).toMatchObject({
      kind: 'timeout',
      limit: 'hard_cap',
      seconds: 10.5,
      lastProgress: 'step 4',
    });
    if (outcome.kind === 'timeout') {
      expect(outcome.error.meta_data.details).toMatchObject({ timeout_seconds: 10.5, limit: 'hard_cap' });
    }
    expect(connection.kills).toHaveLength(1);
  });

  it('scaled-down times use the same texts', async () => {
    const call = start({ noticeSeconds: [0.15, 0.2, 0.25], timeoutSeconds: 0.3, hardCapSeconds: 60 });
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    clock.advance(300);
    await call.promise;
    expect(notices.map((n) => n.message)).toEqual([
      ...TIMEOUT_NOTICES.map((n) => n.message),
      TIMEOUT_MESSAGE,
    ]);
  });

  it('a response before the timeout wins and clears every timer', async () => {
    const call = start();
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    clock.advanceSeconds(16);
    await sendProgress(1, 2, 'half');
    ts.slow.finish();
    const outcome = await call.promise;
    expect(outcome.kind).toBe('result');
    if (outcome.kind === 'result') expect(outcome.lastProgress).toBe('half');
    expect(clock.pendingTimers).toBe(0);
    clock.advanceSeconds(60);
    expect(notices).toHaveLength(1);
    expect(connection.kills).toEqual([]);
  });

  it("the user's cancel cancels the call on the wire and does not kill the server", async () => {
    const controller = new AbortController();
    const call = start(undefined, controller.signal);
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    controller.abort();
    expect(await call.promise).toEqual({ kind: 'cancelled', reason: 'cancelled by the user' });
    await ts.slow.cancelled;
    expect(connection.kills).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an already aborted signal never calls the tool', async () => {
    const controller = new AbortController();
    controller.abort(new Error('changed my mind'));
    const outcome = await start(undefined, controller.signal).promise;
    expect(outcome).toEqual({ kind: 'cancelled', reason: 'changed my mind' });
    expect(ts.calls.slow).toBeUndefined();
  });

  it('a remote server is not killed at the timeout', async () => {
    await connection.close();
    await setup('remote');
    const call = start();
    await waitFor(() => ts.calls.slow === 1, 'the tool to start');
    clock.advanceSeconds(30);
    expect((await call.promise).kind).toBe('timeout');
    expect(connection.kills).toEqual([]);
  });

  it('a protocol failure becomes E_TOOL_ERROR', async () => {
    const outcome = await callWithWatchdog({
      connection,
      tool: 'no_such_tool',
      arguments: {},
      timeouts: { ...DEFAULT_TIMEOUTS },
      clock,
    });
    // The SDK answers an unknown tool either with an isError result or a protocol error.
    if (outcome.kind === 'failed') expect(outcome.error.meta_data.error_code).toBe('E_TOOL_ERROR');
    else expect(outcome).toMatchObject({ kind: 'result', result: { isError: true } });
  });
});
