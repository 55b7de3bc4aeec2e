// Streams one turn as server-sent events on a hijacked reply: `id: <n>`, `event: <type>`,
// `data: <AgentEvent JSON>` (token, tool_call_started, file_request, tool_call_event,
// tool_call_finished, message, error, turn_finished …). The client going away cancels the turn: the stream is the
// turn. Messages are stored as the agent settles them, so a cancelled turn keeps what it did.
import type { Agent, AgentHost, RequestFiles } from '@ferry/agent';
import type { AgentEvent, AgentMessage } from '@ferry/contract';
import type { ConversationStore } from '@ferry/storage';
import type { FastifyReply } from 'fastify';
import type { PathRedactor } from '../http/redact-paths.js';
import { openSseStream } from '../http/sse.js';
import type { ChatTurns } from './chat-turns.js';

export interface StreamTurnInput {
  reply: FastifyReply;
  agent: Agent;
  conversations: ConversationStore;
  turns: ChatTurns;
  slot: NonNullable<ReturnType<ChatTurns['begin']>>;
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
  const write = (event: AgentEvent) => stream.send(++seq, event.type, input.redact(event));
  let settled = false;
  stream.onClose(() => {
    if (!settled) slot.turn.controller.abort();
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
    slot.end();
    stream.end();
  }
}
