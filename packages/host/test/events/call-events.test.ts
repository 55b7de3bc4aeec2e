import type { CallEvent } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { createCallEventSink } from '../../src/events/call-events.js';

describe('createCallEventSink', () => {
  it('stamps call id, a seq that grows by one per event, and an ISO timestamp', () => {
    const seen: CallEvent[] = [];
    let now = Date.parse('2026-11-23T12:00:00Z');
    const sink = createCallEventSink({ callId: 'c1', emit: (e) => seen.push(e), now: () => now });
    sink.emit({ type: 'started', server: 's', tool: 't' });
    now += 1500;
    const returned = sink.emit({ type: 'progress', progress: 1, total: 2, percent: 50 });
    sink.emit({ type: 'finished', isError: false, files: 0 });
    expect(seen.map((e) => [e.seq, e.type, e.callId])).toEqual([
      [1, 'started', 'c1'],
      [2, 'progress', 'c1'],
      [3, 'finished', 'c1'],
    ]);
    expect(seen[1]).toEqual(returned);
    expect(seen[0]?.at).toBe('2026-11-23T12:00:00.000Z');
    expect(seen[1]?.at).toBe('2026-11-23T12:00:01.500Z');
    expect(seen[2]?.at).toBe('2026-11-23T12:00:01.500Z');
  });

  it('each event gets its own time when calls with different clocks interleave', () => {
    // The formatted time is remembered for the last millisecond seen, across every sink.
    const a = createCallEventSink({
      callId: 'a',
      emit: () => {},
      now: () => Date.parse('2026-01-02T03:04:05.006Z'),
    });
    const b = createCallEventSink({
      callId: 'b',
      emit: () => {},
      now: () => Date.parse('2027-12-31T23:59:59.999Z'),
    });
    expect(a.emit({ type: 'cancelled', reason: 'x' }).at).toBe('2026-01-02T03:04:05.006Z');
    expect(b.emit({ type: 'cancelled', reason: 'x' }).at).toBe('2027-12-31T23:59:59.999Z');
    expect(a.emit({ type: 'cancelled', reason: 'x' }).at).toBe('2026-01-02T03:04:05.006Z');
  });

  it('a subscriber that throws does not break the call it watches', () => {
    const sink = createCallEventSink({
      callId: 'c2',
      emit: () => {
        throw new Error('subscriber bug');
      },
    });
    expect(sink.emit({ type: 'cancelled', reason: 'user' }).seq).toBe(1);
    expect(sink.emit({ type: 'cancelled', reason: 'user' }).seq).toBe(2);
  });
});
