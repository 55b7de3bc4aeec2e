import type { FileSource } from '@ferry/contract';
import type { ColumnType } from 'kysely';

// Column types as each dialect hands them back: PostgreSQL returns bigint and count() as strings,
// timestamptz as Date and boolean as boolean; SQLite returns numbers, ISO-8601 text and 0/1.
// Rows are converted once, in rows.ts, so nothing else sees the difference.

type Int64 = ColumnType<number | string | bigint, number, number>;
type Timestamp = ColumnType<Date | string, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | string | null, Date | string | null, Date | string | null>;
type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;

export type FileStatus = 'pending' | 'ready';

export interface FilesTable {
  id: string;
  owner: string;
  name: string;
  /** null while pending. */
  version: number | null;
  /** Bytes; while pending, the bytes its upload has reserved against the owner's quota (0 without one). */
  size: Int64;
  mime: string;
  /** '' while pending. */
  sha256: string;
  source: FileSource;
  category: string | null;
  description: string | null;
  session_id: string | null;
  persist: Bool;
  expires_at: NullableTimestamp;
  created_at: Timestamp;
  /** JSON text. */
  info: string | null;
  blob_key: string;
  status: FileStatus;
}

export interface UsersTable {
  id: string;
  username: string;
  created_at: Timestamp;
  quota_bytes: ColumnType<number | string | bigint | null, number | null, number | null>;
  /** JSON text. */
  flags: string | null;
}

/** A chat with the model (see conversations/); `owner` is a users.id. */
export interface ConversationsTable {
  id: string;
  owner: string;
  title: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One message of a conversation, in order (`seq` 1, 2, …); `data` is JSON text the agent defines. */
export interface ConversationMessagesTable {
  id: string;
  conversation_id: string;
  seq: number;
  role: string;
  data: string;
  created_at: Timestamp;
}

/** OAuth credentials of one user for one remote MCP server (see oauth/); `secrets` is ciphertext. */
export interface OAuthCredentialsTable {
  username: string;
  server: string;
  state: string | null;
  secrets: string;
  updated_at: Timestamp;
}

export interface CatalogTables {
  files: FilesTable;
  users: UsersTable;
  conversations: ConversationsTable;
  conversation_messages: ConversationMessagesTable;
  oauth_credentials: OAuthCredentialsTable;
}
