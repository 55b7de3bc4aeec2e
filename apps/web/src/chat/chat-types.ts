// The chat API as the web app sees it (apps/ferry/src/routes/chat.ts, docs/agent.md): stored
// conversations and messages, and the events of a streamed turn.
import type { CallEvent, UiFile } from '../api/types';

export interface ConversationDto {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  running: boolean;
}

export type ToolStatus = 'finished' | 'failed' | 'cancelled' | 'rejected';

export interface StoredToolCall {
  id: string;
  name: string;
  server?: string;
  tool?: string;
  arguments: string;
}

/** A stored message: the user's text as typed, the model's answer and tool calls, tool results. */
export interface ChatMessageDto {
  seq?: number;
  role: 'user' | 'assistant' | 'tool';
  createdAt?: string;
  text?: string;
  status?: string;
  model?: string;
  toolCalls?: StoredToolCall[];
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

export type TurnStatus = 'completed' | 'cancelled' | 'failed' | 'max_rounds';

export type ChatEvent =
  | { type: 'turn_started'; model: string; tools: number; unavailable: { server: string; reason: string }[] }
  | { type: 'token'; delta: string }
  | {
      type: 'tool_call_started';
      toolCallId: string;
      name: string;
      server?: string;
      tool?: string;
      arguments: Record<string, unknown> | null;
    }
  | { type: 'tool_call_event'; toolCallId: string; event: CallEvent }
  | {
      type: 'tool_call_finished';
      toolCallId: string;
      callId?: string;
      status: ToolStatus;
      isError: boolean;
      files: UiFile[];
      error?: { code: string; message: string };
    }
  | { type: 'message'; message: ChatMessageDto }
  | { type: 'error'; code: string; message: string }
  | { type: 'turn_finished'; status: TurnStatus };
