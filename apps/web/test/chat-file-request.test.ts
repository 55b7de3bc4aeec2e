// The chat's entries for a call paused on its x-mcp-file inputs: the request is attached to the
// tool card, the answer replaces it, and a turn that ends with the request open drops it (nobody
// could answer it any more).
import { describe, expect, it } from 'vitest';
import { applyChatEvent, type ChatEntry, type ToolEntry } from '../src/chat/chat-model';
import type { ChatEvent } from '../src/chat/chat-types';

const started: ChatEvent = {
  type: 'tool_call_started',
  toolCallId: 'c1',
  name: 'xfile__fingerprint_document',
  server: 'xfile',
  tool: 'fingerprint_document',
  arguments: { document: 'notes.csv' },
};
const request: ChatEvent = {
  type: 'file_request',
  toolCallId: 'c1',
  requestId: 'r1',
  server: 'xfile',
  tool: 'fingerprint_document',
  inputs: [
    {
      name: 'document',
      accept: ['text/csv'],
      maxSize: 1024,
      multiple: false,
      required: true,
      proposed: [{ id: 'f1', name: 'notes.csv', size: 12, mime: 'text/csv' }],
    },
  ],
};

const play = (events: ChatEvent[]) => events.reduce<ChatEntry[]>(applyChatEvent, []);
const tool = (entries: ChatEntry[]) => entries.find((e): e is ToolEntry => e.kind === 'tool');

describe('a call waiting for a file', () => {
  it('carries the request on its card until the answer replaces it', () => {
    const waiting = tool(play([started, request]));
    expect(waiting?.status).toBe('running');
    expect(waiting?.fileRequest).toEqual({
      requestId: 'r1',
      inputs: (request as { inputs: unknown }).inputs,
    });
    const answered = tool(
      play([
        started,
        request,
        {
          type: 'file_request_answered',
          toolCallId: 'c1',
          requestId: 'r1',
          action: 'accept',
          files: [{ argument: 'document', id: 'f1', name: 'notes.csv', size: 12, mime: 'text/csv' }],
        },
      ]),
    );
    expect(answered?.fileRequest).toBeUndefined();
    expect(answered?.fileAnswer).toEqual({
      action: 'accept',
      files: [{ argument: 'document', id: 'f1', name: 'notes.csv', size: 12 }],
    });
  });

  it('drops an open request when the turn ends', () => {
    const entries = play([started, request, { type: 'turn_finished', status: 'cancelled' }]);
    expect(tool(entries)?.fileRequest).toBeUndefined();
    expect(tool(entries)?.status).toBe('cancelled');
  });
});
