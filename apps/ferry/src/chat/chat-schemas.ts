// Conversations and stored messages as the chat API shows them; the request and response schemas
// are @ferry/contract's (src/wire/chat-api.ts). Messages are shown as stored: the user's text as
// typed (never the file block the model got with it), the model's text and tool calls, and tool
// results with the stored files.
import type { AgentMessage, ConversationDto } from '@ferry/contract';
import type { ConversationRecord, MessageRecord } from '@ferry/storage';

export function toConversationJson(record: ConversationRecord, running: boolean): ConversationDto {
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
