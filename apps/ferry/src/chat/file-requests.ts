// The chat's open file requests: a tool call the model made waits here until its user picks (or
// approves) the files of its x-mcp-file inputs, or declines. Keyed by owner and conversation, so
// only the user whose turn it is can answer; in memory, like the turn and the SSE stream that
// carry it. The agent's own check runs on every answer first: a file that is not this user's,
// of the wrong type or too large is refused with its envelope and the request stays open.
import type { FileRequest, FileRequestOutcome } from '@ferry/agent';
import type { ErrorEnvelope, FileRequestAnswer } from '@ferry/contract';

export type FileRequestAnswerResult = { ok: true } | { ok: false; error: ErrorEnvelope } | undefined;

export interface FileRequests {
  /** Opens a request of a running turn; resolves with the answer, or `cancel` once `signal` aborts. */
  open(
    owner: string,
    conversationId: string,
    request: FileRequest,
    signal: AbortSignal,
  ): Promise<FileRequestOutcome>;
  /** undefined: no such open request for this user and conversation. */
  answer(
    owner: string,
    conversationId: string,
    requestId: string,
    answer: FileRequestAnswer,
  ): Promise<FileRequestAnswerResult>;
}

interface Pending {
  request: FileRequest;
  settle(outcome: FileRequestOutcome): void;
}

export function createFileRequests(): FileRequests {
  const pending = new Map<string, Pending>();
  const key = (owner: string, conversationId: string, requestId: string) =>
    `${owner}\u0000${conversationId}\u0000${requestId}`;
  return {
    open(owner, conversationId, request, signal) {
      const k = key(owner, conversationId, request.requestId);
      return new Promise<FileRequestOutcome>((resolve) => {
        const onAbort = () => settle({ action: 'cancel' });
        const settle = (outcome: FileRequestOutcome) => {
          if (pending.get(k)?.request !== request) return;
          pending.delete(k);
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        };
        pending.set(k, { request, settle });
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    async answer(owner, conversationId, requestId, answer) {
      const entry = pending.get(key(owner, conversationId, requestId));
      if (!entry) return undefined;
      if (answer.action === 'accept') {
        const error = await entry.request.check(answer.files);
        if (error) return { ok: false, error };
      }
      // Another answer may have settled it while the check ran: the first one wins.
      if (pending.get(key(owner, conversationId, requestId)) !== entry) return undefined;
      entry.settle(answer);
      return { ok: true };
    },
  };
}
