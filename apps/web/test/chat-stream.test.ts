import type { UiFile } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import { applyChatEvent, type ChatEntry, entriesFromMessages } from '../src/chat/chat-model';
import type { ChatEvent } from '../src/chat/chat-types';
import { SseParser } from '../src/chat/sse';

const report: UiFile = {
  id: 'f1',
  name: 'report.html',
  mime: 'text/html',
  size: 10,
  viewer: 'html',
  autoOpen: true,
  deferred: false,
  temporary: false,
};

describe('SseParser', () => {
  it('returns whole events only, across chunk boundaries, skipping comments', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\nevent: tok')).toEqual([]);
    expect(parser.push('en\ndata: {"type":"token","delta":"Hi"}\n\n: keep-alive\n\nid: 2\r\n')).toEqual([
      { id: '1', event: 'token', data: '{"type":"token","delta":"Hi"}' },
    ]);
    expect(parser.push('event: turn_finished\r\ndata: {"a":1}\r\n\r\n')).toEqual([
      { id: '2', event: 'turn_finished', data: '{"a":1}' },
    ]);
  });

  it('keeps one event whole when a CRLF falls across two chunks', () => {
    // The old reader turned the lone \r into a line end and the \n after it into a second one:
    // an empty line, so the event was dispatched half-read.
    const parser = new SseParser();
    expect(parser.push('event: token\r\ndata: {"a":1}\r')).toEqual([]);
    expect(parser.push('\nid: 7\r\n\r\n')).toEqual([{ id: '7', event: 'token', data: '{"a":1}' }]);
  });

  it('joins multi-line data and defaults the event name', () => {
    expect(new SseParser().push('data: a\ndata: b\n\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
});

function play(events: ChatEvent[], start: ChatEntry[] = []): ChatEntry[] {
  return events.reduce(applyChatEvent, start);
}

describe('chat entries from a streamed turn', () => {
  const turn: ChatEvent[] = [
    { type: 'message', message: { role: 'user', text: 'Report on sales.csv' } },
    { type: 'turn_started', model: 'm', tools: 3, unavailable: [] },
    { type: 'token', delta: 'Running ' },
    { type: 'token', delta: 'it.' },
    {
      type: 'message',
      message: {
        role: 'assistant',
        text: 'Running it.',
        toolCalls: [{ id: 'c1', name: 'report__csv_report', arguments: '{"filename":"sales.csv"}' }],
      },
    },
    {
      type: 'tool_call_started',
      toolCallId: 'c1',
      name: 'report__csv_report',
      server: 'report',
      tool: 'csv_report',
      arguments: { filename: 'sales.csv' },
    },
    {
      type: 'tool_call_event',
      toolCallId: 'c1',
      event: { type: 'progress', callId: 'k1', seq: 3, at: 'x', progress: 1, total: 4, message: 'Reading' },
    },
    {
      type: 'tool_call_event',
      toolCallId: 'c1',
      event: {
        type: 'notice',
        callId: 'k1',
        seq: 4,
        at: 'x',
        kind: 'slow',
        afterSeconds: 15,
        message: 'Still working',
      },
    },
  ] as ChatEvent[];

  it('streams tokens into one answer and tracks the tool call live', () => {
    const entries = play(turn);
    expect(entries.map((e) => e.kind)).toEqual(['user', 'assistant', 'tool']);
    expect(entries[1]).toMatchObject({ text: 'Running it.', live: false });
    expect(entries[2]).toMatchObject({
      status: 'running',
      server: 'report',
      tool: 'csv_report',
      callId: 'k1',
      progress: { percent: 25, message: 'Reading' },
      notices: [{ kind: 'slow', afterSeconds: 15, message: 'Still working' }],
    });
  });

  it('settles the call with its files and starts a new answer after it', () => {
    const entries = play([
      ...turn,
      {
        type: 'tool_call_finished',
        toolCallId: 'c1',
        callId: 'k1',
        status: 'finished',
        isError: false,
        files: [report],
      },
      {
        type: 'message',
        message: {
          role: 'tool',
          toolCallId: 'c1',
          name: 'report__csv_report',
          content: '{"ok":1}',
          files: [report],
        },
      },
      { type: 'token', delta: 'Done.' },
      { type: 'message', message: { role: 'assistant', text: 'Done.' } },
      { type: 'turn_finished', status: 'completed' },
    ]);
    expect(entries.map((e) => e.kind)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(entries[2]).toMatchObject({ status: 'finished', files: [report], content: '{"ok":1}' });
    expect(entries[3]).toMatchObject({ text: 'Done.', live: false });
  });

  it('a stopped turn keeps the partial answer, marked, and says so', () => {
    const entries = play([
      { type: 'token', delta: 'Partial' },
      { type: 'turn_finished', status: 'cancelled' },
    ]);
    expect(entries[0]).toMatchObject({
      kind: 'assistant',
      text: 'Partial',
      live: false,
      status: 'cancelled',
    });
    expect(entries[1]).toMatchObject({ kind: 'notice' });
  });

  it('shows errors as entries', () => {
    const entries = play([{ type: 'error', code: 'E_MODEL', message: 'The model failed' }]);
    expect(entries).toMatchObject([{ kind: 'error', code: 'E_MODEL', message: 'The model failed' }]);
  });
});

describe('chat entries from stored messages', () => {
  it('shows the user text as stored, tool calls with their results, unanswered calls as cancelled', () => {
    const entries = entriesFromMessages([
      { role: 'user', text: 'Report please' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { id: 'c1', name: 'report__csv_report', server: 'report', tool: 'csv_report', arguments: '{}' },
          { id: 'c2', name: 'report__csv_report', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', status: 'finished', content: 'ok', files: [report] },
      { role: 'assistant', text: 'Here it is', status: 'cancelled' },
    ]);
    expect(entries.map((e) => e.kind)).toEqual(['user', 'tool', 'tool', 'assistant']);
    expect(entries[0]).toMatchObject({ text: 'Report please' });
    expect(entries[1]).toMatchObject({ status: 'finished', files: [report], server: 'report' });
    expect(entries[2]).toMatchObject({ status: 'cancelled' });
    expect(entries[3]).toMatchObject({ text: 'Here it is', status: 'cancelled', live: false });
  });
});
