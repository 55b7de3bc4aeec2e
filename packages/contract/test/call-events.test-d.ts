// Type tests: vitest's typecheck runs them in npm test (a failure is a failed test, not only a lint
// error).
import { describe, expectTypeOf, it } from 'vitest';
import type { CALL_EVENT_TYPES } from '../src/wire/call-event-types.js';
import type { CallEventType } from '../src/wire/call-events.js';

describe('call event types', () => {
  it('CALL_EVENT_TYPES lists every type of the CallEvent union', () => {
    expectTypeOf<(typeof CALL_EVENT_TYPES)[number]>().toEqualTypeOf<CallEventType>();
  });
});
