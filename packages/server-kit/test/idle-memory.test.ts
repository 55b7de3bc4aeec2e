// collectWhenIdle: one collection per burst of traffic, after the quiet delay, on the SDK's own
// in-memory transport pair (fake timers stand for the quiet); and V8's real collection is what it
// gets by default in this Node.
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectWhenIdle } from '../src/idle-memory.js';

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('collectWhenIdle', () => {
  it('collects once after each burst, only after the delay of quiet, and passes every message on', async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    let collections = 0;
    const wire = collectWhenIdle(server, { delayMs: 1000, gc: () => collections++ });
    const received: JSONRPCMessage[] = [];
    wire.onmessage = (message) => received.push(message);
    await wire.start();
    await client.start();

    await client.send(ping(1));
    vi.advanceTimersByTime(900);
    await wire.send({ jsonrpc: '2.0', id: 1, result: {} });
    vi.advanceTimersByTime(900);
    expect(collections).toBe(0);
    vi.advanceTimersByTime(100);
    expect(collections).toBe(1);
    // Quiet goes on: no further collection without traffic.
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(1);
    await client.send(ping(2));
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(2);
    expect(received).toEqual([ping(1), ping(2)]);

    // Closed: a pending collection is dropped.
    await client.send(ping(3));
    await wire.close();
    vi.advanceTimersByTime(1000);
    expect(collections).toBe(2);
  });

  it('gets V8’s collection by default (the wire is wrapped, not returned as is)', () => {
    const [, server] = InMemoryTransport.createLinkedPair();
    expect(collectWhenIdle(server)).not.toBe(server);
  });
});
