// One tool call from start to outcome: POST /api/calls, follow its events (progress, the
// 15/20/25 s notices, stored files, elicitations, reads through the file provider), cancel, then
// fetch the outcome.

import type {
  CallDetail,
  CallEvent,
  CallHandle,
  CallStatus,
  StartCallRequest,
  StoredFileSummary,
  ToolCallResponse,
} from '@ferry/contract';
import { fileProviderLine } from '@ferry/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiRequestError, api } from '../api/client';
import { followCall } from './call-stream';

export interface CallLogEntry {
  seq: number;
  at: string;
  kind: 'info' | 'progress' | 'notice' | 'file' | 'error';
  text: string;
}

export interface CallState {
  callId: string | null;
  server: string;
  tool: string;
  status: CallStatus | 'starting';
  startedAt: number;
  progress: { percent?: number; message?: string; progress?: number; total?: number } | null;
  notices: { kind: string; afterSeconds: number; message: string }[];
  log: CallLogEntry[];
  files: StoredFileSummary[];
  response: ToolCallResponse | null;
  failure: { code: string; message: string; suggestion?: string } | null;
  cancelling: boolean;
}

/** A call just asked for: no id yet, nothing heard from it. */
export function startingCall(request: { server: string; tool: string }, startedAt = Date.now()): CallState {
  return {
    callId: null,
    server: request.server,
    tool: request.tool,
    status: 'starting',
    startedAt,
    progress: null,
    notices: [],
    log: [],
    files: [],
    response: null,
    failure: null,
    cancelling: false,
  };
}

export interface ToolCallHooks {
  /** The call has its id (POST /api/calls answered): e.g. to open the tool's MCP App. */
  onStarted?(callId: string, request: StartCallRequest): void;
  onEvent?(event: CallEvent): void;
  onSettled?(call: CallDetail): void;
}

export function useToolCall(hooks: ToolCallHooks) {
  const [call, setCall] = useState<CallState | null>(null);
  const stop = useRef<(() => void) | null>(null);
  const hooksRef = useRef(hooks);
  hooksRef.current = hooks;

  const settle = useCallback(async (callId: string) => {
    try {
      const detail = await api<CallDetail>(`/api/calls/${callId}`);
      setCall((c) =>
        c && c.callId === callId
          ? { ...c, status: detail.status, response: detail.response, cancelling: false }
          : c,
      );
      hooksRef.current.onSettled?.(detail);
    } catch (error) {
      setCall((c) =>
        c && c.callId === callId
          ? { ...c, failure: { code: 'E_INTERNAL', message: (error as Error).message } }
          : c,
      );
    }
  }, []);

  const apply = useCallback(
    (event: CallEvent) => {
      hooksRef.current.onEvent?.(event);
      setCall((c) => (c && c.callId === event.callId ? reduceEvent(c, event) : c));
      if (event.type === 'finished' || event.type === 'failed' || event.type === 'cancelled') {
        void settle(event.callId);
      }
    },
    [settle],
  );

  const start = useCallback(
    async (request: StartCallRequest) => {
      stop.current?.();
      setCall(startingCall(request));
      try {
        const { callId } = await api<CallHandle>('/api/calls', { method: 'POST', json: request });
        setCall((c) => (c ? { ...c, callId, status: 'running' } : c));
        hooksRef.current.onStarted?.(callId, request);
        stop.current = followCall(callId, apply, () => void settle(callId));
      } catch (error) {
        const e = error as ApiRequestError;
        setCall((c) =>
          c
            ? {
                ...c,
                status: 'failed',
                failure: {
                  code: e instanceof ApiRequestError ? e.code : 'E_INTERNAL',
                  message: e.message,
                  ...(e instanceof ApiRequestError && e.suggestion ? { suggestion: e.suggestion } : {}),
                },
              }
            : c,
        );
      }
    },
    [apply, settle],
  );

  const cancel = useCallback(async () => {
    const id = call?.callId;
    if (!id) return;
    setCall((c) => (c ? { ...c, cancelling: true } : c));
    try {
      await api(`/api/calls/${id}`, { method: 'DELETE' });
    } catch {
      setCall((c) => (c ? { ...c, cancelling: false } : c));
    }
  }, [call?.callId]);

  useEffect(() => () => stop.current?.(), []);

  return { call, start, cancel, clear: () => setCall(null) };
}

export function reduceEvent(call: CallState, event: CallEvent): CallState {
  const entry = (kind: CallLogEntry['kind'], text: string): CallLogEntry[] => [
    ...call.log,
    { seq: event.seq, at: event.at, kind, text },
  ];
  switch (event.type) {
    case 'started':
      return { ...call, log: entry('info', `Started ${event.server} › ${event.tool}`) };
    case 'arguments_prepared':
      return { ...call, log: entry('info', 'Arguments prepared') };
    case 'progress': {
      const percent =
        event.percent ?? (event.total ? Math.min(100, (event.progress / event.total) * 100) : undefined);
      const progress = {
        progress: event.progress,
        ...(event.total === undefined ? {} : { total: event.total }),
        ...(percent === undefined ? {} : { percent }),
        ...(event.message === undefined ? {} : { message: event.message }),
      };
      return { ...call, progress, log: event.message ? entry('progress', event.message) : call.log };
    }
    case 'notice':
      return {
        ...call,
        notices: [
          ...call.notices,
          { kind: event.kind, afterSeconds: event.afterSeconds, message: event.message },
        ],
        log: entry('notice', `${event.afterSeconds} s: ${event.message}`),
      };
    case 'file_stored':
      return { ...call, files: [...call.files, event.file], log: entry('file', `Stored ${event.file.name}`) };
    case 'file_provider':
      return { ...call, log: entry(event.ok ? 'file' : 'error', fileProviderLine(event)) };
    case 'elicitation':
      return { ...call, log: entry('info', `The tool asks: ${event.message}`) };
    case 'elicitation_answered':
      return { ...call, log: entry('info', `Question answered: ${event.action}`) };
    case 'finished':
      return {
        ...call,
        status: 'finished',
        log: entry('info', event.isError ? 'Finished with an error' : 'Finished'),
      };
    case 'failed':
      return {
        ...call,
        status: 'failed',
        cancelling: false,
        failure: { code: event.code, message: event.message },
        log: entry('error', event.message),
      };
    case 'cancelled':
      return {
        ...call,
        status: 'cancelled',
        cancelling: false,
        log: entry('info', `Cancelled: ${event.reason}`),
      };
  }
}
