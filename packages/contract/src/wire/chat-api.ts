// What the chat API (apps/ferry/src/routes/chat.ts) accepts and answers, besides the streamed turn
// (agent-events.ts). Messages are shown as stored: the user's text as typed (never the file block
// the model got with it), the model's text and tool calls, and tool results with the stored files.
import { z } from 'zod';
import { AssistantToolCallSchema } from './agent-messages.js';
import { UiFileSchema } from './call-answer.js';
import { IdSchema, pageSchema, pagingFields } from './common.js';

const MAX_MESSAGE_CHARS = 100_000;

/** POST /api/conversations. */
export const CreateConversationBodySchema = z
  .strictObject({ title: z.string().max(200, 'title: at most 200 characters').optional() })
  .optional();

/** PATCH /api/conversations/:id. */
export const RenameConversationBodySchema = z.strictObject({
  title: z.string().max(200, 'title: at most 200 characters'),
});

/** POST /api/conversations/:id/messages. */
export const SendMessageBodySchema = z.strictObject({
  text: z
    .string()
    .refine((text) => text.trim() !== '', 'text must not be empty')
    .refine((text) => text.length <= MAX_MESSAGE_CHARS, `text: at most ${MAX_MESSAGE_CHARS} characters`)
    .refine((text) => !text.includes('\u0000'), 'text must not contain NUL'),
});

/** GET /api/conversations. */
export const ListConversationsQuerySchema = z.strictObject(pagingFields(50, 500));

export const ConversationDtoSchema = z
  .object({
    id: IdSchema,
    title: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    messageCount: z.number().int(),
    running: z.boolean().describe('A turn is streaming right now'),
  })
  .meta({ id: 'Conversation' });
export type ConversationDto = z.infer<typeof ConversationDtoSchema>;

export const ConversationPageSchema = pageSchema(ConversationDtoSchema);

/**
 * A stored message (an AgentMessage, agent-messages.ts) with its `seq` and `createdAt`. Loose on
 * purpose: a message stored by an older Ferry may lack fields, and every field it has is shown.
 */
const ChatMessageSchema = z
  .looseObject({
    seq: z.number().int(),
    role: z.enum(['user', 'assistant', 'tool']),
    createdAt: z.string(),
    text: z.string().optional().describe('user: as typed; assistant: the answer'),
    status: z.string().optional(),
    toolCalls: z.array(AssistantToolCallSchema.loose()).optional(),
    toolCallId: z.string().optional(),
    content: z.string().optional().describe('tool: exactly what the model read'),
    files: z
      .array(UiFileSchema.pick({ id: true, name: true, mime: true, size: true }).loose())
      .optional()
      .describe('tool: files the call stored in My Files'),
  })
  .meta({ id: 'ChatMessage' });
/** What the response schema takes as a message (its input: a stored AgentMessage must fit it). */
export type ChatMessageInput = z.input<typeof ChatMessageSchema>;

export const ConversationDetailSchema = ConversationDtoSchema.extend({
  messages: z.array(ChatMessageSchema),
}).meta({ id: 'ConversationDetail' });

/**
 * POST /api/conversations/:id/file-requests/:requestId: the user's answer to a `file_request`
 * event. `accept` names My Files ids per x-mcp-file argument (the model's proposal or the user's
 * own pick); `decline` sends nothing and tells the model so.
 */
export const FileRequestAnswerSchema = z
  .discriminatedUnion('action', [
    z.strictObject({
      action: z.literal('accept'),
      files: z
        .record(z.string().max(200), z.union([IdSchema, z.array(IdSchema).min(1).max(100)]))
        .describe('My Files ids per x-mcp-file argument'),
    }),
    z.strictObject({ action: z.literal('decline') }),
  ])
  .meta({ id: 'FileRequestAnswer' });
export type FileRequestAnswer = z.infer<typeof FileRequestAnswerSchema>;
export const FileRequestAnsweredSchema = z.object({ answered: z.literal(true) });

/** POST /api/conversations/:id/cancel. */
export const CancelTurnAnswerSchema = z.object({ cancelled: z.boolean() });
