// The messages of a conversation as the agent keeps them (ConversationStore `data`), streams them
// (the chat API's `message` event) and shows them. The user's text is kept as typed: the file
// block is added to what is sent to the model, never to what is stored.
import { z } from 'zod';
import { UiFileSchema } from './call-answer.js';

const UserMessageSchema = z.object({ role: z.literal('user'), text: z.string() });

export const AssistantToolCallSchema = z.object({
  id: z.string(),
  /** The name the model used. */
  name: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  /** The arguments as the model wrote them (JSON text). */
  arguments: z.string(),
});
export type AssistantToolCall = z.infer<typeof AssistantToolCallSchema>;

const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  text: z.string(),
  toolCalls: z.array(AssistantToolCallSchema).optional(),
  /** `cancelled`: the user stopped the stream; `incomplete`: the model failed mid-answer. */
  status: z.enum(['cancelled', 'incomplete']).optional(),
  model: z.string().optional(),
});
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

export const ToolMessageStatusSchema = z.enum(['finished', 'failed', 'cancelled', 'rejected']);
export type ToolMessageStatus = z.infer<typeof ToolMessageStatusSchema>;

const ToolMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string(),
  name: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  /** The host's call id, as in its call events (and /api/calls/{id} when run through the API). */
  callId: z.string().optional(),
  status: ToolMessageStatusSchema,
  isError: z.boolean(),
  /** Exactly what the model read. */
  content: z.string(),
  /** Files the call stored in My Files (ids and names, no bytes). */
  files: z.array(UiFileSchema),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Images given to the model once (vision). */
  imagesShown: z.array(z.string()).optional(),
});
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

export const AgentMessageSchema = z.discriminatedUnion('role', [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type AgentMessage = z.infer<typeof AgentMessageSchema>;
