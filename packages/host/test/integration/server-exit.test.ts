// A local server that dies in the middle of a call: killed from outside (SIGKILL) or exiting on
// its own. The call says so, with the signal or the exit code, as E_TOOL_UNAVAILABLE (retryable:
// the pool starts a fresh process on the next call), and the next call succeeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FloodHost, failureOf, openFloodHost } from '../support/flood-host.js';

let env: FloodHost;
beforeAll(async () => {
  env = await openFloodHost();
});
afterAll(() => env?.close());

async function expectNextCallSucceeds(previousPid: number | undefined) {
  const { response } = await env.call('echo', { text: 'after' });
  expect(response.status).toBe('finished');
  const pid = (response.forModel.results as { pid: number }).pid;
  expect(pid).not.toBe(previousPid);
}

describe('a server that dies during a call', () => {
  it('SIGKILLed from outside: E_TOOL_UNAVAILABLE naming the signal, retryable', async () => {
    const pid = (await env.host.pool.get('flood', 'alice')).pid as number;
    const { response } = await env.call(
      'wait',
      {},
      {
        // The server reports progress once the call is in flight: kill it then.
        onEvent: (event) => {
          if (event.type === 'progress') process.kill(pid, 'SIGKILL');
        },
      },
    );
    expect(failureOf(response)).toMatchObject({
      status: 'failed',
      code: 'E_TOOL_UNAVAILABLE',
      retryable: true,
      message: 'MCP server "flood" exited (signal SIGKILL) during the call',
      details: { server: 'flood', signal: 'SIGKILL' },
    });
    expect(response.forModel.error).toMatchObject({ code: 'E_TOOL_UNAVAILABLE' });
    await expectNextCallSucceeds(pid);
  });

  it('exiting with code 3: E_TOOL_UNAVAILABLE naming the exit code, retryable', async () => {
    const pid = (await env.host.pool.get('flood', 'alice')).pid;
    const { response } = await env.call('exit_mid_call', { code: 3 });
    expect(failureOf(response)).toMatchObject({
      status: 'failed',
      code: 'E_TOOL_UNAVAILABLE',
      retryable: true,
      message: 'MCP server "flood" exited with code 3 during the call',
      details: { server: 'flood', exit_code: 3 },
    });
    await expectNextCallSucceeds(pid);
  });
});
