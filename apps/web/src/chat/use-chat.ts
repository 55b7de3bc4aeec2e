// The chat's state: the conversation list, the selected conversation's entries, and the turn
// that is streaming (POST /api/conversations/{id}/messages answers with server-sent events).
// Opening a conversation whose turn is still running (a reload, another tab or device) follows
// that turn (GET /api/conversations/{id}/turn, from its first event) until it ends.
import type { FileRequestAnswer } from '@ferry/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiRequestError, api, errorFromResponse, rememberSession, sessionHeaders } from '../api/client';
import { applyChatEvent, type ChatEntry, entriesFromMessages } from './chat-model';
import type { ChatEvent, ConversationDetailDto, ConversationDto } from './chat-types';
import { SseParser } from './sse';

export interface ChatState {
  conversations: ConversationDto[];
  listError: string | null;
  selectedId: string | null;
  entries: ChatEntry[];
  loading: boolean;
  streaming: boolean;
  stopping: boolean;
  select(id: string | null): void;
  create(): Promise<string | null>;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  send(text: string): Promise<void>;
  stop(): Promise<void>;
  /** Answers a paused call's file request; the error text when Ferry refused the answer. */
  answerFileRequest(requestId: string, answer: FileRequestAnswer): Promise<string | null>;
}

/** Reads a turn's server-sent events into `apply`; true when the turn said it finished. */
async function readTurn(response: Response, apply: (event: ChatEvent) => void): Promise<boolean> {
  if (!response.body) return false;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  let finished = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const message of parser.push(value)) {
      let event: ChatEvent;
      try {
        event = JSON.parse(message.data) as ChatEvent;
      } catch {
        continue;
      }
      if (event.type === 'turn_finished') finished = true;
      apply(event);
    }
  }
  return finished;
}

/**
 * The stored messages before the running turn: a turn begins with its one user message, and its
 * events replay it and everything after.
 */
function beforeRunningTurn(messages: ConversationDetailDto['messages']): ConversationDetailDto['messages'] {
  const last = messages.map((message) => message.role).lastIndexOf('user');
  return last < 0 ? messages : messages.slice(0, last);
}

/** A stream that failed, unless it was aborted on purpose (leaving, another send), shows why. */
function failed(controller: AbortController, error: unknown, apply: (event: ChatEvent) => void): void {
  if (controller.signal.aborted) return;
  const { code, message } = describe(error);
  apply({ type: 'error', code, message });
}

const describe = (error: unknown) =>
  error instanceof ApiRequestError
    ? { code: error.code, message: error.suggestion ? `${error.message} ${error.suggestion}` : error.message }
    : { code: 'E_NETWORK', message: (error as Error).message || 'The connection to Ferry was lost' };

export function useChat(hooks: { onToolFinished(): void; onError(text: string): void }): ChatState {
  const [conversations, setConversations] = useState<ConversationDto[]>([]);
  const [listError, setListError] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [loading, setLoading] = useState(false);
  const [streaming, setStreaming] = useState(false);
  const [stopping, setStopping] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const selectedRef = useRef<string | null>(null);
  const hooksRef = useRef(hooks);
  hooksRef.current = hooks;

  const refreshList = useCallback(async () => {
    try {
      const page = await api<{ items: ConversationDto[] }>('/api/conversations?limit=200');
      setConversations(page.items);
      setListError(null);
    } catch (error) {
      setListError((error as Error).message);
    }
  }, []);

  useEffect(() => {
    void refreshList();
    return () => abort.current?.abort();
  }, [refreshList]);

  /** A stream (a turn sent or followed) is over: the state goes back unless another took over. */
  const streamEnded = useCallback((controller: AbortController) => {
    if (abort.current !== controller) return;
    abort.current = null;
    setStreaming(false);
    setStopping(false);
  }, []);

  // Follows the selected conversation's running turn; the stored conversation is read again at
  // its end (the replay may have been cut short: the server keeps a turn's newest events only).
  const follow = useCallback(
    async (id: string, stored: ConversationDetailDto['messages']) => {
      const controller = new AbortController();
      abort.current?.abort();
      abort.current = controller;
      setStreaming(true);
      setEntries(entriesFromMessages(beforeRunningTurn(stored)));
      const apply = (event: ChatEvent) => {
        if (selectedRef.current !== id) return;
        setEntries((list) => applyChatEvent(list, event));
        if (event.type === 'tool_call_finished') hooksRef.current.onToolFinished();
      };
      try {
        const response = await fetch(`/api/conversations/${encodeURIComponent(id)}/turn`, {
          headers: { accept: 'text/event-stream', ...sessionHeaders() },
          signal: controller.signal,
        });
        if (!response.ok) throw await errorFromResponse(response);
        if (response.status !== 204) await readTurn(response, apply);
        if (controller.signal.aborted || selectedRef.current !== id) return;
        const detail = await api<ConversationDetailDto>(`/api/conversations/${encodeURIComponent(id)}`);
        if (selectedRef.current === id && !controller.signal.aborted)
          setEntries(entriesFromMessages(detail.messages));
      } catch (error) {
        failed(controller, error, apply);
      } finally {
        streamEnded(controller);
      }
    },
    [streamEnded],
  );

  const select = useCallback(
    (id: string | null) => {
      if (selectedRef.current === id) return;
      // Leaving a streaming conversation closes its stream; the server stops the turn after a grace
      // unless it is followed (coming back follows it again).
      abort.current?.abort();
      abort.current = null;
      setStreaming(false);
      setStopping(false);
      selectedRef.current = id;
      setSelectedId(id);
      setEntries([]);
      if (!id) return;
      setLoading(true);
      api<ConversationDetailDto>(`/api/conversations/${encodeURIComponent(id)}`).then(
        (detail) => {
          if (selectedRef.current !== id) return;
          setLoading(false);
          if (detail.running) void follow(id, detail.messages);
          else setEntries(entriesFromMessages(detail.messages));
        },
        (error: unknown) => {
          if (selectedRef.current !== id) return;
          const { code, message } = describe(error);
          setEntries([{ kind: 'error', key: 'load-error', code, message }]);
          setLoading(false);
        },
      );
    },
    [follow],
  );

  const create = useCallback(async () => {
    try {
      const created = await api<ConversationDto>('/api/conversations', { method: 'POST', json: {} });
      setConversations((list) => [created, ...list]);
      // New and empty: nothing to load (a late load could overwrite a turn that starts now).
      abort.current?.abort();
      abort.current = null;
      selectedRef.current = created.id;
      setSelectedId(created.id);
      setEntries([]);
      setLoading(false);
      return created.id;
    } catch (error) {
      hooksRef.current.onError(`Could not start a conversation: ${(error as Error).message}`);
      return null;
    }
  }, []);

  const rename = useCallback(async (id: string, title: string) => {
    try {
      const renamed = await api<ConversationDto>(`/api/conversations/${encodeURIComponent(id)}`, {
        method: 'PATCH',
        json: { title },
      });
      setConversations((list) => list.map((c) => (c.id === id ? renamed : c)));
    } catch (error) {
      hooksRef.current.onError(`Could not rename: ${(error as Error).message}`);
    }
  }, []);

  const remove = useCallback(
    async (id: string) => {
      try {
        if (selectedRef.current === id) select(null);
        await api(`/api/conversations/${encodeURIComponent(id)}`, { method: 'DELETE' });
        setConversations((list) => list.filter((c) => c.id !== id));
      } catch (error) {
        hooksRef.current.onError(`Could not delete: ${(error as Error).message}`);
      }
    },
    [select],
  );

  const send = useCallback(
    async (text: string) => {
      let id = selectedRef.current;
      if (!id) id = await create();
      if (!id) return;
      const controller = new AbortController();
      abort.current?.abort();
      abort.current = controller;
      setStreaming(true);
      setStopping(false);
      const apply = (event: ChatEvent) => {
        if (selectedRef.current !== id) return;
        setEntries((list) => applyChatEvent(list, event));
        if (event.type === 'tool_call_finished') hooksRef.current.onToolFinished();
        // The server titles an untitled conversation from its first message.
        if (event.type === 'turn_started') void refreshList();
      };
      try {
        const response = await fetch(`/api/conversations/${encodeURIComponent(id)}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...sessionHeaders() },
          body: JSON.stringify({ text }),
          signal: controller.signal,
        });
        rememberSession(response.headers);
        if (!response.ok || !response.body) throw await errorFromResponse(response);
        const finished = await readTurn(response, apply);
        if (!finished && !controller.signal.aborted && selectedRef.current === id) {
          // The stream broke (a proxy, an instance going away): the turn may run on; follow it.
          const detail = await api<ConversationDetailDto>(`/api/conversations/${encodeURIComponent(id)}`);
          if (detail.running && selectedRef.current === id) {
            void follow(id, detail.messages);
            return;
          }
        }
        if (!finished)
          apply({
            type: 'error',
            code: 'E_STREAM_CLOSED',
            message: 'The reply stopped before the turn finished.',
          });
      } catch (error) {
        failed(controller, error, apply);
      } finally {
        streamEnded(controller);
        void refreshList();
      }
    },
    [create, refreshList, follow, streamEnded],
  );

  const stop = useCallback(async () => {
    const id = selectedRef.current;
    if (!id) return;
    setStopping(true);
    try {
      await api(`/api/conversations/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
    } catch (error) {
      setStopping(false);
      hooksRef.current.onError(`Could not stop the reply: ${(error as Error).message}`);
    }
  }, []);

  const answerFileRequest = useCallback(async (requestId: string, answer: FileRequestAnswer) => {
    const id = selectedRef.current;
    if (!id) return 'No conversation is open';
    try {
      await api(
        `/api/conversations/${encodeURIComponent(id)}/file-requests/${encodeURIComponent(requestId)}`,
        { method: 'POST', json: answer },
      );
      return null;
    } catch (error) {
      return describe(error).message;
    }
  }, []);

  return {
    conversations,
    listError,
    selectedId,
    entries,
    loading,
    streaming,
    stopping,
    select,
    create,
    rename,
    remove,
    send,
    stop,
    answerFileRequest,
  };
}
