// What a chat turn reports while it runs, in order; the chat API streams these as server-sent
// events (`event: <type>`, `data: <AgentEvent JSON>`) and the web app follows them.
import { z } from 'zod';
import { AgentMessageSchema, ToolMessageStatusSchema } from './agent-messages.js';
import { UiFileSchema } from './call-answer.js';
import { CallEventSchema } from './call-events.js';

const TurnStatusSchema = z.enum(['completed', 'cancelled', 'failed', 'max_rounds']);
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

export const AgentEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('turn_started'),
    model: z.string(),
    tools: z.number(),
    unavailable: z.array(z.object({ server: z.string(), reason: z.string() })),
  }),
  /** A piece of the model's streamed text. */
  z.object({ type: z.literal('token'), delta: z.string() }),
  z.object({
    type: z.literal('tool_call_started'),
    toolCallId: z.string(),
    name: z.string(),
    server: z.string().optional(),
    tool: z.string().optional(),
    /** The arguments the model sent, host-filled properties removed. */
    arguments: z.record(z.string(), z.unknown()).nullable(),
  }),
  /** The host's own event of the call (progress, notice, file_stored, …), as the tools API streams it. */
  z.object({ type: z.literal('tool_call_event'), toolCallId: z.string(), event: CallEventSchema }),
  z.object({
    type: z.literal('tool_call_finished'),
    toolCallId: z.string(),
    callId: z.string().optional(),
    status: ToolMessageStatusSchema,
    isError: z.boolean(),
    files: z.array(UiFileSchema),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** A message that was just stored (user, assistant with or without tool calls, tool result). */
  z.object({ type: z.literal('message'), message: AgentMessageSchema }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('turn_finished'), status: TurnStatusSchema }),
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;
