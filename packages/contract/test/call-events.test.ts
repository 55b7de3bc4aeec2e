import { describe, expect, it } from 'vitest';
import { CALL_EVENT_TYPES, TERMINAL_EVENTS } from '../src/wire/call-event-types.js';

describe('call event types', () => {
  it('lists every type once (call-events.test-d.ts: and every type of the union)', () => {
    expect(new Set(CALL_EVENT_TYPES).size).toBe(CALL_EVENT_TYPES.length);
  });

  it('ends a call on finished, failed and cancelled only', () => {
    expect(CALL_EVENT_TYPES.filter((type) => TERMINAL_EVENTS.has(type))).toEqual([
      'finished',
      'failed',
      'cancelled',
    ]);
    expect(TERMINAL_EVENTS.size).toBe(3);
  });
});
