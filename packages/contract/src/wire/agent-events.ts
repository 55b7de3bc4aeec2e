// What a chat turn reports while it runs, in order; the chat API streams these as server-sent
// events (`event: <type>`, `data: <AgentEvent JSON>`) and the web app follows them.
import type { AgentMessage, ToolMessageStatus } from './agent-messages.js';
import type { UiFile } from './call-answer.js';
import type { CallEvent } from './call-events.js';

export type TurnStatus = 'completed' | 'cancelled' | 'failed' | 'max_rounds';

export type AgentEvent =
  | { type: 'turn_started'; model: string; tools: number; unavailable: { server: string; reason: string }[] }
  /** A piece of the model's streamed text. */
  | { type: 'token'; delta: string }
  | {
      type: 'tool_call_started';
      toolCallId: string;
      name: string;
      server?: string;
      tool?: string;
      /** The arguments the model sent, host-filled properties removed. */
      arguments: Record<string, unknown> | null;
    }
  /** The host's own event of the call (progress, notice, file_stored, …), as the tools API streams it. */
  | { type: 'tool_call_event'; toolCallId: string; event: CallEvent }
  | {
      type: 'tool_call_finished';
      toolCallId: string;
      callId?: string;
      status: ToolMessageStatus;
      isError: boolean;
      files: UiFile[];
      error?: { code: string; message: string };
    }
  /** A message that was just stored (user, assistant with or without tool calls, tool result). */
  | { type: 'message'; message: AgentMessage }
  | { type: 'error'; code: string; message: string }
  | { type: 'turn_finished'; status: TurnStatus };
