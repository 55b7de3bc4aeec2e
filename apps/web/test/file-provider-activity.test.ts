// A tool reading the user's files through the file provider (`file_provider` call events): one
// line per callback in the runner's activity log and in the chat's tool card, the outcome in words.
import type { CallEvent } from '@ferry/contract';
import { fileProviderLine } from '@ferry/contract';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { applyChatEvent, type ChatEntry, type ToolEntry } from '../src/chat/chat-model';
import { ToolCard } from '../src/chat/tool-card';
import { type CallState, reduceEvent, startingCall } from '../src/state/use-tool-call';

const base = { callId: 'c1', at: '2026-01-01T00:00:00.000Z' };
const READ: CallEvent = {
  ...base,
  seq: 2,
  type: 'file_provider',
  tool: 'read_file',
  path: '/tmp/alice/report.txt',
  ok: true,
  bytes: 12_595,
  durationMs: 4.4,
};
const REFUSED: CallEvent = {
  ...base,
  seq: 3,
  type: 'file_provider',
  tool: 'list_directory',
  path: '/tmp/alice/src',
  ok: false,
  errorType: 'PermissionError',
  durationMs: 1,
};

describe('fileProviderLine', () => {
  it('says what was read, how much and how long it took; a failure by its error type', () => {
    expect(fileProviderLine(READ as Extract<CallEvent, { type: 'file_provider' }>)).toBe(
      'read_file /tmp/alice/report.txt · 12.3 KiB · 4 ms',
    );
    expect(fileProviderLine(REFUSED as Extract<CallEvent, { type: 'file_provider' }>)).toBe(
      'list_directory /tmp/alice/src · PermissionError · 1 ms',
    );
    expect(
      fileProviderLine({ tool: 'find_files', path: '/tmp/alice', ok: true, count: 1, durationMs: 9 }),
    ).toBe('find_files /tmp/alice · 1 entry · 9 ms');
    expect(fileProviderLine({ tool: 'list_directory', ok: true, count: 3, durationMs: 0 })).toBe(
      'list_directory · 3 entries · 0 ms',
    );
  });
});

describe('the runner', () => {
  it('logs each callback as a line, a refused one as an error', () => {
    const initial: CallState = { ...startingCall({ server: 'scan', tool: 'scan' }, 0), callId: 'c1' };
    const state = [READ, REFUSED].reduce(reduceEvent, initial);
    expect(state.log).toEqual([
      { seq: 2, at: base.at, kind: 'file', text: 'read_file /tmp/alice/report.txt · 12.3 KiB · 4 ms' },
      { seq: 3, at: base.at, kind: 'error', text: 'list_directory /tmp/alice/src · PermissionError · 1 ms' },
    ]);
    // Reading files changes nothing else of the call.
    expect(state.files).toEqual([]);
    expect(state.status).toBe(initial.status);
  });
});

describe('the chat tool card', () => {
  it('lists what the tool read of the user’s files', () => {
    const entries = [READ, REFUSED].reduce<ChatEntry[]>(
      (all, event) => applyChatEvent(all, { type: 'tool_call_event', toolCallId: 't1', event }),
      [],
    );
    const entry = entries[0] as ToolEntry;
    expect(entry.fileActivity).toEqual([
      { seq: 2, text: 'read_file /tmp/alice/report.txt · 12.3 KiB · 4 ms', ok: true },
      { seq: 3, text: 'list_directory /tmp/alice/src · PermissionError · 1 ms', ok: false },
    ]);
    const html = renderToStaticMarkup(createElement(ToolCard, { entry, onOpen: () => {} }));
    expect(html).toContain('<h4>Your files the tool read</h4>');
    expect(html).toContain('<li class="file">read_file /tmp/alice/report.txt · 12.3 KiB · 4 ms</li>');
    expect(html).toContain('<li class="error">list_directory /tmp/alice/src · PermissionError · 1 ms</li>');
  });

  it('shows no such section for a tool that read nothing', () => {
    const entries = applyChatEvent([], {
      type: 'tool_call_event',
      toolCallId: 't1',
      event: { ...base, seq: 1, type: 'progress', progress: 1 },
    });
    const html = renderToStaticMarkup(
      createElement(ToolCard, { entry: entries[0] as ToolEntry, onOpen: () => {} }),
    );
    expect(html).not.toContain('Your files the tool read');
  });
});
