// The messages of a conversation as Ferry keeps them (ConversationStore `data`) and shows them,
// and how they become model messages again when a conversation is resumed. Their shapes are the
// contract's: the chat API streams them and the web app shows them. The user's text is
// kept as typed: the file block is added to what is sent, never to what is stored.
import type { AgentMessage, AssistantMessage, AssistantToolCall, ToolMessage } from '@ferry/contract';
import type { ModelMessage } from './model-client.js';

/** History → model messages. Tool calls without a result (a crash mid-turn) are left out. */
export function toModelMessages(history: readonly AgentMessage[]): ModelMessage[] {
  const answered = new Set(history.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const out: ModelMessage[] = [];
  for (const message of history) {
    if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'tool')
      out.push({ role: 'tool', toolCallId: message.toolCallId, content: message.content });
    else {
      const calls = (message.toolCalls ?? []).filter((call) => answered.has(call.id));
      if (message.text === '' && calls.length === 0) continue;
      out.push({
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(calls.length > 0
          ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
          : {}),
      });
    }
  }
  return out;
}

/** Reads a stored message back; anything malformed is dropped rather than sent to the model. */
export function fromStored(role: string, data: Record<string, unknown>): AgentMessage | undefined {
  if (role === 'user' && typeof data.text === 'string') return { role, text: data.text };
  if (role === 'assistant' && typeof data.text === 'string') {
    const calls = Array.isArray(data.toolCalls) ? data.toolCalls.filter(isToolCall) : [];
    const message: AssistantMessage = { role, text: data.text };
    if (calls.length > 0) message.toolCalls = calls;
    if (data.status === 'cancelled' || data.status === 'incomplete') message.status = data.status;
    if (typeof data.model === 'string') message.model = data.model;
    return message;
  }
  if (role === 'tool' && typeof data.toolCallId === 'string' && typeof data.content === 'string') {
    return {
      files: [],
      name: '',
      status: 'finished',
      isError: false,
      ...(data as object),
      role,
      toolCallId: data.toolCallId,
      content: data.content,
    } as ToolMessage;
  }
  return undefined;
}

function isToolCall(value: unknown): value is AssistantToolCall {
  const call = value as AssistantToolCall;
  return (
    typeof call === 'object' &&
    call !== null &&
    typeof call.id === 'string' &&
    typeof call.name === 'string' &&
    typeof call.arguments === 'string'
  );
}
