// The chat API as the web app sees it (apps/ferry/src/routes/chat.ts, docs/agent.md): stored
// conversations and messages, and the events of a streamed turn (the agent's, from the contract).
import type { AgentEvent, AssistantToolCall, ConversationDto, UiFile } from '@ferry/contract';

export type { ConversationDto };

/**
 * A message, stored or just streamed: the user's text as typed, the model's answer and tool calls,
 * tool results. Deliberately one loose shape rather than the contract's AgentMessage union: a
 * message read back from storage may lack fields, and the API adds `seq` and `createdAt` to it.
 */
export interface ChatMessageDto {
  seq?: number;
  role: 'user' | 'assistant' | 'tool';
  createdAt?: string;
  text?: string;
  status?: string;
  model?: string;
  toolCalls?: AssistantToolCall[];
  toolCallId?: string;
  name?: string;
  server?: string;
  tool?: string;
  callId?: string;
  isError?: boolean;
  content?: string;
  files?: UiFile[];
  error?: { code: string; message: string };
}

export interface ConversationDetailDto extends ConversationDto {
  messages: ChatMessageDto[];
}

/** The agent's events, with `message` read as loosely as a stored message. */
export type ChatEvent =
  | Exclude<AgentEvent, { type: 'message' }>
  | { type: 'message'; message: ChatMessageDto };
