import type { CallEvent } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { type CallState, reduceEvent, startingCall } from '../src/state/use-tool-call';
import { readUserEvent } from '../src/state/use-user-events';

const base = { callId: 'c1', at: '2026-01-01T00:00:00.000Z' };
const initial: CallState = {
  ...startingCall({ server: 'slow', tool: 'slow_task' }, 0),
  callId: 'c1',
  status: 'running',
};

function apply(events: CallEvent[]): CallState {
  return events.reduce(reduceEvent, initial);
}

describe('reduceEvent', () => {
  it('derives the percent from progress/total and keeps the message', () => {
    const state = apply([
      { ...base, seq: 1, type: 'progress', progress: 3, total: 12, message: 'step 3/12' },
    ]);
    expect(state.progress).toEqual({ progress: 3, total: 12, percent: 25, message: 'step 3/12' });
    expect(state.log.at(-1)?.text).toBe('step 3/12');
  });

  it('keeps notices in arrival order and ends failed with the code', () => {
    const state = apply([
      { ...base, seq: 1, type: 'notice', kind: 'slow', afterSeconds: 15, message: 'first' },
      { ...base, seq: 2, type: 'notice', kind: 'slow', afterSeconds: 20, message: 'second' },
      { ...base, seq: 3, type: 'failed', code: 'E_TIMEOUT', message: 'timed out', retryable: true },
    ]);
    expect(state.notices.map((n) => n.afterSeconds)).toEqual([15, 20]);
    expect(state.status).toBe('failed');
    expect(state.failure).toEqual({ code: 'E_TIMEOUT', message: 'timed out' });
  });

  it('collects stored files and settles as cancelled', () => {
    const file = {
      id: 'f',
      name: 'a.png',
      mime: 'image/png',
      size: 1,
      viewer: 'image',
      deferred: false,
      temporary: false,
    };
    const state = apply([
      { ...base, seq: 1, type: 'file_stored', file },
      { ...base, seq: 2, type: 'cancelled', reason: 'by the user' },
    ]);
    expect(state.files).toEqual([file]);
    expect(state.status).toBe('cancelled');
  });
});

describe('readUserEvent', () => {
  it('unwraps call events and passes files_changed through', () => {
    const event = { ...base, seq: 4, type: 'finished', isError: false, files: 2 };
    expect(readUserEvent({ type: 'call', event, id: 9 })).toEqual(event);
    expect(readUserEvent({ type: 'files_changed', reason: 'uploaded', fileIds: ['x'] })).toEqual({
      type: 'files_changed',
      reason: 'uploaded',
      fileIds: ['x'],
    });
    expect(readUserEvent({ type: 'progress', callId: 'c', seq: 1, at: '', progress: 1 })).toMatchObject({
      type: 'progress',
    });
    expect(readUserEvent({ type: 'something_else' })).toBeUndefined();
    expect(readUserEvent(null)).toBeUndefined();
  });
});
