// A file in My Files: the facts the catalog keeps (packages/storage FileRecord) and the form the
// files API shows (apps/ferry/src/files/file-dto.ts, whose zod schema strips everything else).
export type FileSource = 'uploaded' | 'generated' | 'deferred';

/** Cheap facts about the content for the prompt file block; every field optional. */
export interface FileInfo {
  rows?: number;
  columns?: number;
  width?: number;
  height?: number;
  pages?: number;
  /** A deferred artifact's v2.1 §7 `reason` (e.g. `needs_editing`). */
  deferredReason?: string;
  /** A deferred artifact's `next_actions`: what the user may do with it next. */
  nextActions?: string[];
}

/**
 * A file as the API shows it: no owner id, blob key or session key.
 * Wire form, deliberately not FileRecord: ISO 8601 strings for its Dates, `temporary` for `!persist`.
 */
export interface FileDto {
  id: string;
  name: string;
  version: number;
  size: number;
  mime: string;
  sha256: string;
  source: FileSource;
  category: string | null;
  description: string | null;
  /** Session-only: deleted when the session it was stored in ends. */
  temporary: boolean;
  /** ISO 8601; null = does not expire. */
  expiresAt: string | null;
  /** ISO 8601. */
  createdAt: string;
  info: FileInfo | null;
  /**
   * Upload answers only: true when these bytes already were the latest version of the name, which
   * is what is returned; nothing new was stored.
   */
  unchanged?: boolean;
}
