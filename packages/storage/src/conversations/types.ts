// A user's chats with the model, kept in the catalog database beside My Files. The store knows
// conversations and ordered messages; what a message holds (`data`) is the agent's business, kept
// as JSON. Every method takes the owner (a users.id) and filters on it: another owner's
// conversation reads as missing.

export interface ConversationRecord {
  id: string;
  owner: string;
  title: string;
  createdAt: Date;
  /** Changes when a message is added or the title changes. */
  updatedAt: Date;
  messageCount: number;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  /** 1, 2, 3, … in the order the messages were appended. */
  seq: number;
  role: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface NewMessage {
  role: string;
  data: Record<string, unknown>;
}

export interface ConversationListOptions {
  /** @default 50 */
  limit?: number;
  /** @default 0 */
  offset?: number;
}

export interface ConversationStore {
  readonly dialect: string;
  create(owner: string, fields?: { title?: string }): Promise<ConversationRecord>;
  /** Most recently updated first. */
  list(
    owner: string,
    options?: ConversationListOptions,
  ): Promise<{ items: ConversationRecord[]; total: number }>;
  get(owner: string, id: string): Promise<ConversationRecord | undefined>;
  rename(owner: string, id: string, title: string): Promise<ConversationRecord | undefined>;
  /** Deletes the conversation and its messages; false when there was none of this owner. */
  delete(owner: string, id: string): Promise<boolean>;
  /** Deletes every conversation of the owner and their messages (user deletion); returns how many. */
  deleteOwner(owner: string): Promise<number>;
  /** Appends in order; undefined when the conversation is not this owner's (or is gone). */
  append(owner: string, id: string, messages: readonly NewMessage[]): Promise<MessageRecord[] | undefined>;
  /** Every message in order; undefined when the conversation is not this owner's. */
  messages(owner: string, id: string): Promise<MessageRecord[] | undefined>;
}

/** Titles are one line of at most this many characters. */
export const MAX_TITLE_CHARS = 200;
