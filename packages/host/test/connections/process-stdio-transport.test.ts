import { readFileSync } from 'node:fs';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { LineTooLongError } from '../../src/connections/json-lines.js';
import {
  ProcessStdioTransport,
  type ProcessStdioTransportOptions,
} from '../../src/connections/process-stdio-transport.js';
import { isGone, waitUntilGone } from '../support/processes.js';

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
  transport.onmessage = (message) => {
    messages.push(message);
    resolveFirst(message);
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => {
    closes += 1;
    resolveClosed();
  };
  await transport.start();
  return { transport, messages, errors, first, closed, closes: () => closes };
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

  it('stops a server whose message exceeds maxMessageBytes', async () => {
    const { transport, errors, closed } = await run({
      command: process.execPath,
      args: ['-e', "process.stdout.write('x'.repeat(4096)); setInterval(() => {}, 1e6)"],
      maxMessageBytes: 1024,
    });
    await closed;
    expect(errors[0]).toBeInstanceOf(LineTooLongError);
    expect(transport.exit?.signal).toBe('SIGKILL');
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
