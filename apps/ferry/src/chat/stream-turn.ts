// Streams one turn as server-sent events on a hijacked reply: `id: <n>`, `event: <type>`,
// `data: <AgentEvent JSON>` (token, tool_call_started, file_request, tool_call_event,
// tool_call_finished, message, error, turn_finished …), each also written to the turn log that any
// instance follows (GET /api/conversations/:id/turn). The client going away stops the turn after
// a grace unless someone follows it (chat-turns.ts). Messages are stored as the agent settles
// them, so a cancelled turn keeps what it did.
import type { Agent, AgentHost, RequestFiles } from '@ferry/agent';
import type { AgentEvent, AgentMessage } from '@ferry/contract';
import type { ConversationStore } from '@ferry/storage';
import type { FastifyReply } from 'fastify';
import type { PathRedactor } from '../http/redact-paths.js';
import { openSseStream } from '../http/sse.js';
import type { TurnSlot } from './chat-turns.js';

export interface StreamTurnInput {
  reply: FastifyReply;
  agent: Agent;
  conversations: ConversationStore;
  slot: TurnSlot;
  redact: PathRedactor;
  /** Runs the turn's tool calls (the call registry). */
  host: AgentHost;
  /** Holds a call's x-mcp-file question until the user answers it (file-requests.ts). */
  requestFiles: RequestFiles;
  user: { owner: string; username: string };
  sessionId: string;
  conversationId: string;
  history: AgentMessage[];
  text: string;
  onError(error: unknown): void;
}

export async function streamTurn(input: StreamTurnInput): Promise<void> {
  const { reply, slot, conversations, user, conversationId } = input;
  const stream = openSseStream(reply);
  let seq = 0;
  const write = (event: AgentEvent) => {
    const safe = input.redact(event);
    seq += 1;
    stream.send(seq, event.type, safe);
    slot.emit(seq, safe);
  };
  let settled = false;
  stream.onClose(() => {
    if (!settled) slot.detached();
  });
  try {
    await input.agent.runTurn({
      user,
      sessionId: input.sessionId,
      history: input.history,
      text: input.text,
      signal: slot.turn.controller.signal,
      host: input.host,
      requestFiles: input.requestFiles,
      emit: write,
      persist: async (messages) => {
        const stored = await conversations.append(
          user.owner,
          conversationId,
          messages.map((message) => ({ role: message.role, data: { ...message } })),
        );
        if (!stored) throw new Error('the conversation was deleted');
      },
    });
  } catch (error) {
    input.onError(error);
    write({ type: 'error', code: 'E_INTERNAL', message: 'The turn failed; see the Ferry logs' });
    write({ type: 'turn_finished', status: 'failed' });
  } finally {
    settled = true;
    stream.end();
    await slot.end();
  }
}
