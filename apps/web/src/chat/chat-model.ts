// What the chat shows, as a list of entries: the user's messages, the model's answers (growing
// token by token while a turn streams), tool calls as cards (progress, notices, files, the result
// the model read, the file a paused call waits for) and errors. Built from stored messages, then
// advanced by the turn's events. Pure, so it is tested without a browser.

import type {
  AssistantToolCall,
  FileRequestInput,
  ToolMessageStatus,
  TurnStatus,
  UiFile,
} from '@ferry/contract';
import { fileProviderLine } from '@ferry/contract';
import { type CallState, reduceEvent } from '../state/use-tool-call';
import type { ChatEvent, ChatMessageDto } from './chat-types';

export interface UserEntry {
  kind: 'user';
  key: string;
  text: string;
}

export interface AssistantEntry {
  kind: 'assistant';
  key: string;
  text: string;
  /** Tokens are still arriving. */
  live: boolean;
  status?: string;
}

export interface ToolEntry {
  kind: 'tool';
  key: string;
  toolCallId: string;
  name: string;
  server?: string;
  tool?: string;
  arguments: string;
  status: 'pending' | 'running' | ToolMessageStatus;
  /** Made by a turn streaming in this page (not read back from storage): its app view may open by itself. */
  streamed?: boolean;
  callId?: string;
  /** Live progress and notices, as the tool runner tracks them. */
  progress: CallState['progress'];
  notices: CallState['notices'];
  /** What the tool read of the user's files through the file provider, one line per callback. */
  fileActivity?: { seq: number; text: string; ok: boolean }[];
  files: UiFile[];
  /** What the model read. */
  content?: string;
  isError: boolean;
  error?: { code: string; message: string };
  /** The call waits for the user to pick or approve the files of its x-mcp-file inputs. */
  fileRequest?: { requestId: string; inputs: FileRequestInput[] };
  /** What the user answered: the files that went to the server, or none. */
  fileAnswer?: {
    action: 'accept' | 'decline' | 'cancel';
    files: { argument: string; id: string; name: string; size: number }[];
  };
}

export interface ErrorEntry {
  kind: 'error';
  key: string;
  code: string;
  message: string;
}

export interface NoticeEntry {
  kind: 'notice';
  key: string;
  text: string;
}

export type ChatEntry = UserEntry | AssistantEntry | ToolEntry | ErrorEntry | NoticeEntry;

let counter = 0;
const nextKey = (prefix: string) => `${prefix}-${++counter}`;

function toolEntry(
  call: AssistantToolCall | { id: string; name: string; server?: string; tool?: string },
): ToolEntry {
  return {
    kind: 'tool',
    key: `tool-${call.id}`,
    toolCallId: call.id,
    name: call.name,
    ...(call.server === undefined ? {} : { server: call.server }),
    ...(call.tool === undefined ? {} : { tool: call.tool }),
    arguments: 'arguments' in call && typeof call.arguments === 'string' ? call.arguments : '',
    status: 'pending',
    progress: null,
    notices: [],
    files: [],
    isError: false,
  };
}

function upsertTool(
  entries: ChatEntry[],
  toolCallId: string,
  create: () => ToolEntry,
  change: (entry: ToolEntry) => ToolEntry,
): ChatEntry[] {
  const index = entries.findIndex((e) => e.kind === 'tool' && e.toolCallId === toolCallId);
  if (index === -1) return [...entries, change(create())];
  const copy = entries.slice();
  copy[index] = change(entries[index] as ToolEntry);
  return copy;
}

function applyToolResult(entries: ChatEntry[], message: ChatMessageDto): ChatEntry[] {
  const id = message.toolCallId ?? '';
  return upsertTool(
    entries,
    id,
    () =>
      toolEntry({
        id,
        name: message.name ?? '',
        server: message.server,
        tool: message.tool,
      } as AssistantToolCall),
    (entry) => ({
      ...entry,
      status: (message.status as ToolMessageStatus | undefined) ?? 'finished',
      isError: message.isError ?? false,
      files: message.files && message.files.length > 0 ? message.files : entry.files,
      ...(message.content === undefined ? {} : { content: message.content }),
      ...(message.callId === undefined ? {} : { callId: message.callId }),
      ...(message.error ? { error: message.error } : {}),
    }),
  );
}

/** Adds a stored (or just stored) message. */
function addMessage(entries: ChatEntry[], message: ChatMessageDto): ChatEntry[] {
  if (message.role === 'user') {
    return [...entries, { kind: 'user', key: nextKey('user'), text: message.text ?? '' }];
  }
  if (message.role === 'tool') return applyToolResult(entries, message);
  // assistant: settles the answer that streamed (if any), then lists its tool calls.
  let next = entries;
  const liveIndex = entries.findLastIndex((e) => e.kind === 'assistant' && e.live);
  const text = message.text ?? '';
  const status = message.status;
  if (liveIndex !== -1) {
    next = entries.slice();
    next[liveIndex] = {
      ...(entries[liveIndex] as AssistantEntry),
      text: text || (entries[liveIndex] as AssistantEntry).text,
      live: false,
      ...(status ? { status } : {}),
    };
  } else if (text !== '' || status) {
    next = [
      ...entries,
      { kind: 'assistant', key: nextKey('assistant'), text, live: false, ...(status ? { status } : {}) },
    ];
  }
  for (const call of message.toolCalls ?? []) {
    next = upsertTool(
      next,
      call.id,
      () => toolEntry(call),
      (entry) => ({ ...entry, arguments: call.arguments }),
    );
  }
  return next;
}

/** The entries of a stored conversation. */
export function entriesFromMessages(messages: readonly ChatMessageDto[]): ChatEntry[] {
  let entries: ChatEntry[] = [];
  for (const message of messages) entries = addMessage(entries, message);
  // A call without a result (the turn crashed or was stopped before it ran) is not running.
  return entries.map((e) =>
    e.kind === 'tool' && e.status === 'pending' ? { ...e, status: 'cancelled' } : e,
  );
}

const TURN_TEXT: Record<Exclude<TurnStatus, 'completed'>, string> = {
  cancelled: 'Stopped: the answer above is what arrived before you stopped it.',
  failed: 'The turn failed.',
  max_rounds: 'The model used all its tool rounds for this message and stopped.',
};

/** Advances the entries by one event of a streaming turn. */
export function applyChatEvent(entries: ChatEntry[], event: ChatEvent): ChatEntry[] {
  switch (event.type) {
    case 'turn_started':
      return entries;
    case 'token': {
      const last = entries.at(-1);
      if (last?.kind === 'assistant' && last.live) {
        return [...entries.slice(0, -1), { ...last, text: last.text + event.delta }];
      }
      return [...entries, { kind: 'assistant', key: nextKey('assistant'), text: event.delta, live: true }];
    }
    case 'message':
      return addMessage(entries, event.message);
    case 'tool_call_started':
      return upsertTool(
        settleLive(entries),
        event.toolCallId,
        () =>
          toolEntry({
            id: event.toolCallId,
            name: event.name,
            server: event.server,
            tool: event.tool,
          } as AssistantToolCall),
        (entry) => ({
          ...entry,
          ...(event.server === undefined ? {} : { server: event.server }),
          ...(event.tool === undefined ? {} : { tool: event.tool }),
          arguments: event.arguments ? JSON.stringify(event.arguments) : entry.arguments,
          status: 'running',
          streamed: true,
        }),
      );
    case 'file_request':
      return upsertTool(
        settleLive(entries),
        event.toolCallId,
        () => ({ ...toolEntry({ id: event.toolCallId, name: event.tool }), status: 'running' }),
        (entry) => ({ ...entry, fileRequest: { requestId: event.requestId, inputs: event.inputs } }),
      );
    case 'file_request_answered':
      return upsertTool(
        entries,
        event.toolCallId,
        () => toolEntry({ id: event.toolCallId, name: '' }),
        ({ fileRequest: _answered, ...entry }) => ({
          ...entry,
          fileAnswer: {
            action: event.action,
            files: event.files.map(({ argument, id, name, size }) => ({ argument, id, name, size })),
          },
        }),
      );
    case 'tool_call_event':
      return upsertTool(
        entries,
        event.toolCallId,
        () => ({ ...toolEntry({ id: event.toolCallId, name: '' }), status: 'running' }),
        (entry) => trackCallEvent(entry, event.event),
      );
    case 'tool_call_finished':
      return upsertTool(
        entries,
        event.toolCallId,
        () => toolEntry({ id: event.toolCallId, name: '' }),
        (entry) => ({
          ...entry,
          status: event.status,
          isError: event.isError,
          files: event.files.length > 0 ? event.files : entry.files,
          ...(event.callId === undefined ? {} : { callId: event.callId }),
          ...(event.error ? { error: event.error } : {}),
        }),
      );
    case 'error':
      return [
        ...settleLive(entries),
        { kind: 'error', key: nextKey('error'), code: event.code, message: event.message },
      ];
    case 'turn_finished': {
      const settled = settleLive(entries, event.status === 'cancelled' ? 'cancelled' : undefined).map((e) =>
        e.kind === 'tool' && (e.status === 'running' || e.status === 'pending')
          ? { ...e, status: event.status === 'cancelled' ? ('cancelled' as const) : ('failed' as const) }
          : e,
      );
      // A file request outlives no turn: nobody could answer it any more.
      for (const [i, e] of settled.entries()) {
        if (e.kind === 'tool' && e.fileRequest) {
          const { fileRequest: _gone, ...rest } = e;
          settled[i] = rest;
        }
      }
      if (event.status === 'completed') return settled;
      return [...settled, { kind: 'notice', key: nextKey('notice'), text: TURN_TEXT[event.status] }];
    }
  }
}

function settleLive(entries: ChatEntry[], status?: string): ChatEntry[] {
  return entries.map((e) =>
    e.kind === 'assistant' && e.live ? { ...e, live: false, ...(status ? { status } : {}) } : e,
  );
}

/**
 * Progress, notices, stored files and file-provider reads of the host's call, tracked as the tool
 * runner does.
 */
function trackCallEvent(entry: ToolEntry, event: Parameters<typeof reduceEvent>[1]): ToolEntry {
  const state: CallState = {
    callId: event.callId,
    server: entry.server ?? '',
    tool: entry.tool ?? entry.name,
    status: 'running',
    startedAt: 0,
    progress: entry.progress,
    notices: entry.notices,
    log: [],
    files: [],
    response: null,
    failure: null,
    cancelling: false,
  };
  const next = reduceEvent(state, event);
  return {
    ...entry,
    callId: event.callId,
    progress: next.progress,
    notices: next.notices,
    ...(event.type === 'file_provider'
      ? {
          fileActivity: [
            ...(entry.fileActivity ?? []),
            { seq: event.seq, text: fileProviderLine(event), ok: event.ok },
          ],
        }
      : {}),
    status: entry.status === 'pending' ? 'running' : entry.status,
  };
}
