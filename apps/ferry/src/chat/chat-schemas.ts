// Request and response schemas of the chat API (routes/chat.ts), the source of its OpenAPI
// description. Messages are shown as stored: the user's text as typed (never the file block the
// model got with it), the model's text and tool calls, and tool results with the stored files.
import type { AgentMessage } from '@ferry/contract';
import type { ConversationRecord, MessageRecord } from '@ferry/storage';
import { z } from 'zod';
import { IdSchema, pagingFields } from '../http/schemas.js';

const MAX_MESSAGE_CHARS = 100_000;

export const CreateConversationBodySchema = z
  .strictObject({ title: z.string().max(200, 'title: at most 200 characters').optional() })
  .optional();

export const RenameConversationBodySchema = z.strictObject({
  title: z.string().max(200, 'title: at most 200 characters'),
});

export const SendMessageBodySchema = z.strictObject({
  text: z
    .string()
    .refine((text) => text.trim() !== '', 'text must not be empty')
    .refine((text) => text.length <= MAX_MESSAGE_CHARS, `text: at most ${MAX_MESSAGE_CHARS} characters`)
    .refine((text) => !text.includes('\u0000'), 'text must not contain NUL'),
});

export const ListConversationsQuerySchema = z.strictObject(pagingFields(50, 500));

export const ConversationSchema = z
  .object({
    id: IdSchema,
    title: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    messageCount: z.number().int(),
    running: z.boolean().describe('A turn is streaming right now'),
  })
  .meta({ id: 'Conversation' });

const FileRefSchema = z.looseObject({ id: z.string(), name: z.string(), mime: z.string(), size: z.number() });

const MessageSchema = z
  .looseObject({
    seq: z.number().int(),
    role: z.enum(['user', 'assistant', 'tool']),
    createdAt: z.string(),
    text: z.string().optional().describe('user: as typed; assistant: the answer'),
    status: z.string().optional(),
    toolCalls: z
      .array(
        z.looseObject({
          id: z.string(),
          name: z.string(),
          server: z.string().optional(),
          tool: z.string().optional(),
          arguments: z.string(),
        }),
      )
      .optional(),
    toolCallId: z.string().optional(),
    content: z.string().optional().describe('tool: exactly what the model read'),
    files: z.array(FileRefSchema).optional().describe('tool: files the call stored in My Files'),
  })
  .meta({ id: 'ChatMessage' });

export const ConversationDetailSchema = ConversationSchema.extend({ messages: z.array(MessageSchema) }).meta({
  id: 'ConversationDetail',
});

export function toConversationJson(record: ConversationRecord, running: boolean) {
  return {
    id: record.id,
    title: record.title,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    messageCount: record.messageCount,
    running,
  };
}

export function toMessageJson(record: MessageRecord) {
  return {
    ...record.data,
    seq: record.seq,
    role: record.role as AgentMessage['role'],
    createdAt: record.createdAt.toISOString(),
  };
}

/** The first line of the first message, as a title for an untitled conversation. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length <= 80 ? line : `${line.slice(0, 79)}…`;
}
