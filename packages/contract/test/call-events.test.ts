import { describe, expect, expectTypeOf, it } from 'vitest';
import { CALL_EVENT_TYPES, type CallEventType, TERMINAL_EVENTS } from '../src/call-events.js';

describe('call event types', () => {
  it('lists every type of the CallEvent union once', () => {
    // Checked by tsc (npm run lint): a type added to the union but not to the list fails here.
    expectTypeOf<(typeof CALL_EVENT_TYPES)[number]>().toEqualTypeOf<CallEventType>();
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
