// The messages of a conversation as the agent keeps them (ConversationStore `data`), streams them
// (the chat API's `message` event) and shows them. The user's text is kept as typed: the file
// block is added to what is sent to the model, never to what is stored.
import type { UiFile } from './call-answer.js';

export interface UserMessage {
  role: 'user';
  text: string;
}

export interface AssistantToolCall {
  id: string;
  /** The name the model used. */
  name: string;
  server?: string;
  tool?: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

export interface AssistantMessage {
  role: 'assistant';
  text: string;
  toolCalls?: AssistantToolCall[];
  /** `cancelled`: the user stopped the stream; `incomplete`: the model failed mid-answer. */
  status?: 'cancelled' | 'incomplete';
  model?: string;
}

export type ToolMessageStatus = 'finished' | 'failed' | 'cancelled' | 'rejected';

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  server?: string;
  tool?: string;
  /** The host's call id, as in its call events (and /api/calls/{id} when run through the API). */
  callId?: string;
  status: ToolMessageStatus;
  isError: boolean;
  /** Exactly what the model read. */
  content: string;
  /** Files the call stored in My Files (ids and names, no bytes). */
  files: UiFile[];
  error?: { code: string; message: string };
  /** Images given to the model once (vision). */
  imagesShown?: string[];
}

export type AgentMessage = UserMessage | AssistantMessage | ToolMessage;
