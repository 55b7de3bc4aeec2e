// The call event types as values, for clients that listen to each (the web app's EventSource).
// No zod here: the web app imports these at run time, and its first screen must stay zod-free
// (apps/web/test/bundle-budget.test.ts); it imports the event shapes (call-events.ts) as types only.
import type { CallEventType } from './call-events.js';

/**
 * Every event type, in the order a call may emit them. Each is its own SSE `event:` name, so a
 * client listens to each (test/call-events.test-d.ts checks that the list is complete).
 */
export const CALL_EVENT_TYPES = [
  'started',
  'arguments_prepared',
  'progress',
  'notice',
  'file_stored',
  'elicitation',
  'elicitation_answered',
  'file_provider',
  'finished',
  'failed',
  'cancelled',
] as const satisfies readonly CallEventType[];

/** The events that end a call: nothing follows them. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  'finished',
  'failed',
  'cancelled',
] satisfies CallEventType[]);
