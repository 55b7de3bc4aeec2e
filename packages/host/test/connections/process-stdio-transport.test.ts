import { readFileSync } from 'node:fs';
import { isGone, waitUntilGone } from '@ferry/test-helpers/processes';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  ProcessStdioTransport,
  type ProcessStdioTransportOptions,
} from '../../src/connections/process-stdio-transport.js';

// These drive the transport with small shell and node programs that print JSON-RPC lines, so
// each behaviour is visible without an MCP handshake in the way.

const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** Starts a transport and collects what it reports until it closes. */
async function run(options: Partial<ProcessStdioTransportOptions> & { command: string; args: string[] }) {
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closes = 0;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const transport = new ProcessStdioTransport({ env: { PATH }, onStderr: () => {}, ...options });
  let resolveFirst!: (message: JSONRPCMessage) => void;
  const first = new Promise<JSONRPCMessage>((resolve) => {
    resolveFirst = resolve;
  });
  const waiters: { count: number; resolve: () => void }[] = [];
  transport.onmessage = (message) => {
    messages.push(message);
    resolveFirst(message);
    for (const waiter of waiters.filter((w) => messages.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  /** Resolves once `count` messages have arrived. */
  const received = (count: number) =>
    new Promise<void>((resolve) => {
      if (messages.length >= count) resolve();
      else waiters.push({ count, resolve });
    });
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => {
    closes += 1;
    resolveClosed();
  };
  await transport.start();
  return { transport, messages, errors, first, received, closed, closes: () => closes };
}

/** A shell that starts `sleep` in the background and reports its pid as a notification. */
const withBackgroundChild = (then: string) => [
  '-c',
  `sleep 1000 & printf '{"jsonrpc":"2.0","method":"child","params":{"pid":%s}}\\n' $!; ${then}`,
];

/** The params of a notification, as the small programs below send them. */
const paramsOf = <T>(message: JSONRPCMessage) => (message as { params?: unknown }).params as T;
const childPid = (message: JSONRPCMessage) => paramsOf<{ pid: number }>(message).pid;

function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/**
 * A node program that, once it has read `count` requests, writes `lines` to stdout, with `ID1`,
 * `ID2`… replaced by the ids of those requests.
 */
function replier(count: number, lines: string[], options: Partial<ProcessStdioTransportOptions> = {}) {
  const program = `
    const [count, ...lines] = JSON.parse(process.argv[1]);
    const ids = [];
    require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      ids.push(JSON.parse(line).id);
      if (ids.length !== count) return;
      for (const out of lines) process.stdout.write(out.replace(/ID(\\d)/g, (_, n) => JSON.stringify(ids[n - 1])) + '\\n');
    });`;
  return run({
    command: process.execPath,
    args: ['-e', program, JSON.stringify([count, ...lines])],
    ...options,
  });
}
const NOTE = '{"jsonrpc":"2.0","method":"after"}';

describe('ProcessStdioTransport', () => {
  it('starts the server as the leader of its own process group', async () => {
    const { transport, first } = await run({ command: 'sh', args: withBackgroundChild('wait') });
    const pid = transport.pid as number;
    const child = childPid(await first);
    expect(processGroupOf(pid)).toBe(pid);
    expect(processGroupOf(child)).toBe(pid);
    expect(processGroupOf(process.pid)).not.toBe(pid);
    await transport.kill();
  });

  it('kill() ends the whole group, grandchildren included, and closes once', async () => {
    const { transport, first, closes } = await run({ command: 'sh', args: withBackgroundChild('wait') });
    const pid = transport.pid as number;
    const child = childPid(await first);
    await transport.kill();
    expect(isGone(pid)).toBe(true);
    expect(transport.exit).toEqual({ code: null, signal: 'SIGKILL' });
    await waitUntilGone(child);
    expect(closes()).toBe(1);
  });

  it('closes when the server exits even though a child it left behind holds stdout open', async () => {
    const { transport, first, closed } = await run({ command: 'sh', args: withBackgroundChild('exit 7') });
    const child = childPid(await first);
    await closed;
    expect(transport.exit).toEqual({ code: 7, signal: null });
    await waitUntilGone(child);
  });

  it('close() lets a server exit on stdin EOF, and SIGKILLs one that does not', async () => {
    const polite = await run({
      command: process.execPath,
      args: ['-e', "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"],
    });
    await polite.transport.close();
    expect(polite.transport.exit).toEqual({ code: 0, signal: null });

    const stubborn = await run({
      command: process.execPath,
      args: ['-e', "process.stdin.on('end', () => {}); process.stdin.resume(); setInterval(() => {}, 1e6)"],
      closeGraceMs: 100,
    });
    await stubborn.transport.close();
    expect(stubborn.transport.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('gives the process exactly the environment it was given', async () => {
    const { transport, first } = await run({
      command: process.execPath,
      args: ['-e', "console.log(JSON.stringify({ jsonrpc: '2.0', method: 'env', params: process.env }))"],
      env: { ONLY_THIS: 'yes' },
    });
    expect(paramsOf(await first)).toEqual({ ONLY_THIS: 'yes' });
    await transport.close();
  });

  it('sends messages as JSON lines and reports non-JSON stdout lines as errors', async () => {
    const echo =
      "process.stdout.write('starting up\\n'); " +
      "require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => console.log(l))";
    const { transport, first, errors } = await run({ command: process.execPath, args: ['-e', echo] });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await first).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(errors.map((e) => e.message)).toEqual(['Not a JSON-RPC message on stdout: starting up']);
    await transport.close();
  });

  it('reads a 50 MB message in one piece', async () => {
    const size = 50 * 1024 * 1024;
    const { transport, first } = await run({
      command: process.execPath,
      args: [
        '-e',
        `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { text: 'x'.repeat(${size}) } }) + '\\n')`,
      ],
    });
    expect(paramsOf<{ text: string }>(await first).text.length).toBe(size);
    await transport.close();
  });

  it('fails only the request whose answer is over maxMessageBytes (id last, as the SDK writes it)', async () => {
    const big = `{"result":{"text":"${'x'.repeat(4096)}"},"jsonrpc":"2.0","id":ID1}`;
    const { transport, messages, errors, received } = await replier(1, [big, NOTE], {
      maxMessageBytes: 1024,
    });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    await received(2);
    expect(messages[0]).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: {
        message: "The tool's result is over the 1 KiB limit (maxResultBytes); Ferry did not read it",
        data: { code: 'E_RESULT_TOO_LARGE', details: { limit_bytes: 1024 } },
      },
    });
    // The stream stayed in step: the next line is read, and the server still runs.
    expect(messages[1]).toEqual({ jsonrpc: '2.0', method: 'after' });
    expect(errors).toEqual([]);
    expect(transport.exit).toBeUndefined();
    await transport.close();
  });

  it('with several requests waiting, finds the one a long answer is for by its id', async () => {
    const big = `{"result":{"text":"${'x'.repeat(4096)}"},"jsonrpc":"2.0","id":ID2}`;
    const small = '{"result":{"text":"fine"},"jsonrpc":"2.0","id":ID1}';
    const { transport, messages, received } = await replier(2, [big, small], { maxMessageBytes: 1024 });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' });
    await received(2);
    expect(messages[0]).toMatchObject({ id: 2, error: { data: { code: 'E_RESULT_TOO_LARGE' } } });
    expect(messages[1]).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'fine' } });
    await transport.close();
  });

  it('fails every waiting request when a long answer does not say which it is', async () => {
    const big = `{"result":{"text":"${'x'.repeat(4096)}"},"no":"id"}`;
    const { transport, messages, received } = await replier(2, [big], { maxMessageBytes: 1024 });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' });
    await received(2);
    expect(messages.map((m) => (m as { id?: number }).id).sort()).toEqual([1, 2]);
    expect(messages.every((m) => 'error' in m)).toBe(true);
    await transport.close();
  });

  it('drops a long notification of the server and reports it, failing nothing', async () => {
    const big = `{"method":"notifications/message","params":{"data":"${'x'.repeat(4096)}"},"jsonrpc":"2.0"}`;
    const { transport, messages, errors, received } = await replier(1, [big, NOTE], {
      maxMessageBytes: 1024,
    });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    await received(1);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'after' }]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Dropped a \d+-byte message from the server, over the 1 KiB limit$/),
    ]);
    await transport.close();
  });

  it('drops a message nested too deep before parsing it, failing its request', async () => {
    const deep = `{"result":{"structuredContent":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}},"jsonrpc":"2.0","id":ID1}`;
    const { transport, messages, received } = await replier(1, [deep, NOTE]);
    await transport.send({ jsonrpc: '2.0', id: 'r1', method: 'tools/call' });
    await received(2);
    expect(messages[0]).toMatchObject({
      id: 'r1',
      error: {
        message: 'Unreadable tool result: the result is nested deeper than 64 levels, the most Ferry reads',
        data: { code: 'E_TOOL_ERROR' },
      },
    });
    expect(messages[1]).toEqual({ jsonrpc: '2.0', method: 'after' });
    await transport.close();
  });

  it('rejects start() when the command does not exist, and refuses to send', async () => {
    const transport = new ProcessStdioTransport({
      command: 'no-such-command-ferry',
      args: [],
      env: { PATH },
    });
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await expect(transport.start()).rejects.toMatchObject({ code: 'ENOENT' });
    expect(closed).toBe(true);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrowError(
      /not running/,
    );
  });
});
