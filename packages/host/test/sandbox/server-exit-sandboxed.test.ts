// A sandboxed server that dies mid-call: the transport's process is the wrapper shell around
// bubblewrap (packages/sandbox/src/sandbox-wrapper.ts), which passes the tool's exit status on
// (a signal as 128 + n, as shells do). The call names it, stays retryable, and the next call
// gets a fresh sandbox. The quota stop, which arrives the same way, keeps its own code
// (sandbox-modes.test.ts).

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ToolCallResponse } from '@ferry/contract';
import { processesWith } from '@ferry/test-helpers/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSandboxedHost, type SandboxedHost, sandboxedExample } from './support/sandboxed-host.js';

/** Host pids of the flood server's node processes: those whose program is node itself. */
function toolProcesses(): number[] {
  return processesWith('examples/servers/dist/flood.js').filter((pid) => {
    const program = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return basename(program).startsWith('node');
  });
}

const FLOOD = sandboxedExample('flood');

let env: SandboxedHost;
beforeAll(async () => {
  env = await openSandboxedHost({ users: ['alice'], servers: { flood: FLOOD } });
});
afterAll(() => env?.close());

const failure = ({ response }: { response: ToolCallResponse }) => ({
  code: response.forUi.error?.meta_data.error_code,
  retryable: response.forUi.error?.meta_data.retryable,
  message: response.forUi.error?.results.error,
});

describe('a sandboxed server that dies during a call', () => {
  it('exit code 3 comes through the wrapper', async () => {
    const called = await env.call('alice', 'flood', 'exit_mid_call', { code: 3 });
    expect(failure(called)).toEqual({
      code: 'E_TOOL_UNAVAILABLE',
      retryable: true,
      message: 'MCP server "flood" exited with code 3 during the call',
    });
    expect((await env.call('alice', 'flood', 'echo', { text: 'x' })).response.status).toBe('finished');
  });

  it('the tool SIGKILLed inside the sandbox is named by its signal', async () => {
    expect((await env.call('alice', 'flood', 'echo', { text: 'x' })).response.status).toBe('finished');
    const response = await env.host.callTool(
      {
        user: { owner: env.owners.alice as string, username: 'alice' },
        server: 'flood',
        tool: 'wait',
        arguments: {},
      },
      (event) => {
        // In flight: kill the tool's own node process (not the wrapper shell or bwrap around it).
        if (event.type === 'progress') for (const pid of toolProcesses()) process.kill(pid, 'SIGKILL');
      },
    );
    expect(failure({ response })).toEqual({
      code: 'E_TOOL_UNAVAILABLE',
      retryable: true,
      message: 'MCP server "flood" exited with code 137 (128 + SIGKILL) during the call',
    });
    expect((await env.call('alice', 'flood', 'echo', { text: 'x' })).response.status).toBe('finished');
  });
});
