// What a chat turn reports while it runs, in order; the chat API streams these as server-sent
// events (`event: <type>`, `data: <AgentEvent JSON>`) and the web app follows them.
import { z } from 'zod';
import { AgentMessageSchema, ToolMessageStatusSchema } from './agent-messages.js';
import { UiFileSchema } from './call-answer.js';
import { CallEventSchema } from './call-events.js';

const TurnStatusSchema = z.enum(['completed', 'cancelled', 'failed', 'max_rounds']);
export type TurnStatus = z.infer<typeof TurnStatusSchema>;

/** A file of My Files as a file request shows it: enough to say which file goes where, no bytes. */
const RequestFileSchema = z.object({ id: z.string(), name: z.string(), size: z.number(), mime: z.string() });

/** One SEP-2356 x-mcp-file input of the tool the model called, as the picker needs it. */
const FileRequestInputSchema = z.object({
  /** The argument's name. */
  name: z.string(),
  description: z.string().optional(),
  accept: z.array(z.string()).optional(),
  maxSize: z.number().optional(),
  multiple: z.boolean(),
  required: z.boolean(),
  /** The files the model named for it (resolved and checked by Ferry); the user approves or changes them. */
  proposed: z.array(RequestFileSchema),
});
export type FileRequestInput = z.infer<typeof FileRequestInputSchema>;

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
    /** MCP Apps: the server's CallToolResult for the tool's view, as ToolCallResponse.mcpResult. */
    mcpResult: z.record(z.string(), z.unknown()).optional(),
    mcpResultOmitted: z.literal(true).optional(),
  }),
  /**
   * The call waits for the user: its x-mcp-file inputs are sent only once the user picked (or
   * approved the model's choice of) the files, with POST /api/conversations/{id}/file-requests/{requestId}.
   */
  z.object({
    type: z.literal('file_request'),
    toolCallId: z.string(),
    requestId: z.string(),
    server: z.string(),
    tool: z.string(),
    inputs: z.array(FileRequestInputSchema),
  }),
  /** The user's answer: the files that go to the server (accept), or none. */
  z.object({
    type: z.literal('file_request_answered'),
    toolCallId: z.string(),
    requestId: z.string(),
    action: z.enum(['accept', 'decline', 'cancel']),
    files: z.array(RequestFileSchema.extend({ argument: z.string() })),
  }),
  /** A message that was just stored (user, assistant with or without tool calls, tool result). */
  z.object({ type: z.literal('message'), message: AgentMessageSchema }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('turn_finished'), status: TurnStatusSchema }),
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;
