// A call an MCP App makes (its `tools/call`), and the outcome of the call that opened it: both go
// through Ferry's whole pipeline (POST /api/calls: argument preparation, the watchdog, outputs
// stored in My Files), followed on the call's event stream as the runner does, and answered as
// the MCP CallToolResult the app expects.
import type { CallDetail, CallHandle, CallStatus, StartCallRequest, ToolCallResponse } from '@ferry/contract';
import { api } from '../api/client';
import { followCall } from '../state/call-stream';
import type { CallToolResult } from './app-bridge';

/** The settled call (GET /api/calls/:id), once its stream has ended. */
export function waitForCall(callId: string, signal?: AbortSignal): Promise<CallDetail> {
  return new Promise((resolve, reject) => {
    let done = false;
    const settle = () => {
      if (done) return;
      done = true;
      stop();
      api<CallDetail>(`/api/calls/${encodeURIComponent(callId)}`).then(resolve, reject);
    };
    const stop = followCall(
      callId,
      (event) => {
        if (event.type === 'finished' || event.type === 'failed' || event.type === 'cancelled') settle();
      },
      settle,
    );
    signal?.addEventListener('abort', () => {
      done = true;
      stop();
      reject(new Error('aborted'));
    });
  });
}

export async function runCall(request: StartCallRequest, signal?: AbortSignal): Promise<CallDetail> {
  const { callId } = await api<CallHandle>('/api/calls', { method: 'POST', json: request });
  return waitForCall(callId, signal);
}

/**
 * The CallToolResult of a settled call: the server's own result when Ferry kept it (`mcpResult`),
 * else one built from what the model was told, so the app still learns how it went.
 */
export function callToolResultOf(detail: {
  status: CallStatus;
  response: ToolCallResponse | null;
}): CallToolResult {
  const response = detail.response;
  // As the server sent it (Ferry checked only that it is an object); `content` is required.
  if (response?.mcpResult) {
    const content = response.mcpResult.content;
    return { ...response.mcpResult, content: Array.isArray(content) ? content : [] } as CallToolResult;
  }
  const error = response?.forUi.error?.results.error;
  if (detail.status !== 'finished' || error) {
    const text =
      typeof error === 'string'
        ? error
        : `The call ${detail.status === 'running' ? 'did not end' : detail.status}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
  const results = response?.forModel.results;
  const text = typeof results === 'string' ? results : JSON.stringify(results ?? null);
  return { content: [{ type: 'text', text }] };
}
