// Streams one turn as server-sent events on a hijacked reply: `id: <n>`, `event: <type>`,
// `data: <AgentEvent JSON>` (token, tool_call_started, tool_call_event, tool_call_finished,
// message, error, turn_finished …). The client going away cancels the turn: the stream is the
// turn. Messages are stored as the agent settles them, so a cancelled turn keeps what it did.
import type { Agent, AgentEvent, AgentHost, AgentMessage } from '@ferry/agent';
import type { ConversationStore } from '@ferry/storage';
import type { FastifyReply } from 'fastify';
import type { PathRedactor } from '../http/redact-paths.js';
import type { ChatTurns } from './chat-turns.js';

const HEARTBEAT_MS = 15_000;

export interface StreamTurnInput {
  reply: FastifyReply;
  agent: Agent;
  conversations: ConversationStore;
  turns: ChatTurns;
  slot: NonNullable<ReturnType<ChatTurns['begin']>>;
  redact: PathRedactor;
  /** Runs the turn's tool calls (the call registry). */
  host: AgentHost;
  user: { owner: string; username: string };
  sessionId: string;
  conversationId: string;
  history: AgentMessage[];
  text: string;
  onError(error: unknown): void;
}

export async function streamTurn(input: StreamTurnInput): Promise<void> {
  const { reply, slot, conversations, user, conversationId } = input;
  // Headers set before the hijack (X-Ferry-Session, nosniff, no-store) go out with the stream.
  const headers = Object.fromEntries(
    Object.entries(reply.getHeaders()).filter(
      (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
    ),
  );
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  let seq = 0;
  const write = (event: AgentEvent) => {
    if (out.writableEnded || out.destroyed) return;
    // JSON.stringify escapes newlines, so a message can never end the event early.
    out.write(`id: ${++seq}\nevent: ${event.type}\ndata: ${JSON.stringify(input.redact(event))}\n\n`);
  };
  let settled = false;
  out.on('close', () => {
    if (!settled) slot.turn.controller.abort();
  });
  const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  try {
    await input.agent.runTurn({
      user,
      sessionId: input.sessionId,
      history: input.history,
      text: input.text,
      signal: slot.turn.controller.signal,
      host: input.host,
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
    clearInterval(heartbeat);
    slot.end();
    out.end();
  }
}
