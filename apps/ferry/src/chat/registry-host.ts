// The agent's tool calls go through the API's call registry, like the tool runner's: they are
// listed at /api/calls (the chat's tool messages carry the same call id), count towards
// calls.maxRunningPerUser, and their events reach the user's event stream (My Files refreshes
// when a chat tool stores a file). A call the registry refuses (too many running) comes back to
// the model as a failed call, not as a crash of the turn.

import { randomUUID } from 'node:crypto';
import type { AgentHost } from '@ferry/agent';
import type { ToolCallResponse } from '@ferry/contract';
import { answerFromError } from '@ferry/host';
import type { CallRegistry, CallSnapshot } from '../calls/call-registry.js';
import { ApiError } from '../http/api-error.js';
import type { AppHost } from '../services.js';

export function registryHost(host: AppHost, calls: CallRegistry): AgentHost {
  return {
    registry: host.registry,
    listTools: (server, username) => host.listTools(server, username),
    callTool: async (request, emit) => {
      let record: CallSnapshot;
      try {
        record = await calls.start({
          owner: request.user.owner,
          username: request.user.username,
          server: request.server,
          tool: request.tool,
          arguments: request.arguments,
          ...(request.sessionId === undefined ? {} : { sessionKey: request.sessionId }),
          ...(request.fileInputs === undefined ? {} : { fileInputs: request.fileInputs }),
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return { callId: randomUUID(), status: 'failed', ...answerFromError(error.toEnvelope()) };
      }
      return new Promise<ToolCallResponse>((resolve) => {
        const onAbort = () => void calls.cancel(record);
        request.signal?.addEventListener('abort', onAbort, { once: true });
        if (request.signal?.aborted) onAbort();
        // The registry starts the call on the next turn of the event loop, after `start` has
        // resolved: subscribing now (synchronously) misses no event.
        const stop = calls.subscribe(record.callId, {
          event: (event) => emit?.(event),
          end: (response) => {
            stop();
            request.signal?.removeEventListener('abort', onAbort);
            resolve(response ?? { callId: record.callId, status: 'failed', ...internalAnswer() });
          },
        });
      });
    },
  };
}

function internalAnswer() {
  return answerFromError({
    results: { error: 'Internal error' },
    meta_data: {
      is_error: true,
      reason: 'InternalError',
      error_code: 'E_INTERNAL',
      details: {},
      retryable: true,
    },
  });
}
