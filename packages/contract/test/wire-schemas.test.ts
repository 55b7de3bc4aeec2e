// The wire schemas (src/wire/) are the one definition of what the API sends; these check that
// what the host and the agent emit goes through them unchanged.
import { describe, expect, it } from 'vitest';
import { AgentEventSchema } from '../src/wire/agent-events.js';
import { CALL_EVENT_TYPES } from '../src/wire/call-event-types.js';
import { type CallEvent, CallEventBodySchema, type StoredFileSummary } from '../src/wire/call-events.js';
import { UserEventSchema } from '../src/wire/user-events.js';

const summary: StoredFileSummary = {
  id: 'f1',
  name: 'report.csv',
  mime: 'text/csv',
  size: 12,
  viewer: 'table',
  deferred: false,
  temporary: false,
};
const stored: CallEvent = {
  callId: 'c1',
  seq: 3,
  at: '2025-01-01T00:00:00.000Z',
  type: 'file_stored',
  file: summary,
};

describe('call events', () => {
  it('CALL_EVENT_TYPES (zod-free, for the web app) names exactly the schema’s event types', () => {
    const types = CallEventBodySchema.options.map((option) => option.shape.type.value);
    expect([...CALL_EVENT_TYPES].sort()).toEqual([...types].sort());
  });

  it('a call event in the user stream parses as it was sent', () => {
    const event = { type: 'call' as const, event: stored, id: 7, at: '2025-01-01T00:00:01.000Z' };
    expect(UserEventSchema.parse(event)).toEqual(event);
  });
});

describe('agent events', () => {
  it('a tool call that finished, and the tool message it stored, parse as they were sent', () => {
    const file = { ...summary, autoOpen: true, primary: true as const };
    const finished = {
      type: 'tool_call_finished' as const,
      toolCallId: 't1',
      callId: 'c1',
      status: 'finished' as const,
      isError: false,
      files: [file],
    };
    const message = {
      type: 'message' as const,
      message: {
        role: 'tool' as const,
        toolCallId: 't1',
        name: 'report',
        status: 'finished' as const,
        isError: false,
        content: '{"ok":true}',
        files: [file],
      },
    };
    const relayed = { type: 'tool_call_event' as const, toolCallId: 't1', event: stored };
    for (const event of [finished, message, relayed]) expect(AgentEventSchema.parse(event)).toEqual(event);
  });
});
