// The catalog's public shapes. Rows come back camelCased and typed the same on every dialect:
// sizes are numbers, timestamps Dates, `persist` a boolean, `info` parsed JSON.
import type { FileDto, FileInfo, FileSource } from '@ferry/contract';
import type { Kysely } from 'kysely';
import type { CatalogTables } from './tables.js';
import type { CatalogTraits } from './traits.js';

/**
 * A stored, ready version of a logical file. The fields the API shows are FileDto's (@ferry/contract);
 * the rest it never shows, and its Dates and `persist` are FileDto's ISO strings and `!temporary`.
 */
export interface FileRecord
  extends Pick<
    FileDto,
    'id' | 'name' | 'version' | 'size' | 'mime' | 'sha256' | 'source' | 'category' | 'description' | 'info'
  > {
  owner: string;
  sessionId: string | null;
  /** false = session-only: deleted with its session. */
  persist: boolean;
  expiresAt: Date | null;
  /** When this version became ready. */
  createdAt: Date;
  /** Opaque blob driver key; never shown to users. */
  blobKey: string;
}

/**
 * A row whose bytes are still being written; invisible to every owner-facing query. Under a quota
 * it holds the bytes its upload has reserved (see {@link Catalog.reserve}).
 */
export interface PendingFile {
  id: string;
  owner: string;
  name: string;
  blobKey: string;
  /** When the row was inserted or, later, when its upload last reserved space: its last sign of life. */
  createdAt: Date;
}

export interface NewPendingFile {
  owner: string;
  /** Already normalized by the caller (FileStore runs the contract's normalizer). */
  name: string;
  /** Defaults to a random UUID. */
  id?: string;
  /** Defaults to {@link blobKeyFor}(owner, id). */
  blobKey?: string;
  /** The claimed type; finalize may replace it with the sniffed one. */
  mime: string;
  source: FileSource;
  category?: string | null;
  description?: string | null;
  sessionId?: string | null;
  /** @default true */
  persist?: boolean;
  expiresAt?: Date | null;
}

/** What is only known once every byte has been streamed. */
export interface FinalizeFields {
  size: number;
  sha256: string;
  mime?: string;
  info?: FileInfo | null;
}

export type ListSort = 'name' | 'created' | 'size';

export interface ListOptions {
  source?: FileSource;
  /** Case-insensitive substring of the name (SQLite folds ASCII letters only); `%` and `_` match themselves. */
  query?: string;
  sessionId?: string;
  /** @default 'name' */
  sort?: ListSort;
  /** @default 'asc' */
  order?: 'asc' | 'desc';
  /** @default 100 */
  limit?: number;
  /** @default 0 */
  offset?: number;
  /** Every version instead of the latest of each name. @default false */
  allVersions?: boolean;
}

export interface ListResult {
  items: FileRecord[];
  /** Matching rows before limit/offset. */
  total: number;
}

/** What {@link Catalog.reserve} asks for. */
export interface ReserveRequest {
  /** The pending row's whole reservation: the bytes its upload has received so far. */
  bytes: number;
  /** The owner's quota in bytes. */
  quotaBytes: number;
}

export type Reservation =
  | { ok: true }
  /** The bytes do not fit; the row keeps what it had. */
  | {
      ok: false;
      /** The owner's stored (ready) files. */
      storedBytes: number;
      /** What the owner's other uploads in progress hold. */
      reservedByOthers: number;
      /**
       * The part of reservedByOthers held by uploads that come before this one (smaller id): an
       * order every instance agrees on, by which refused uploads decide who waits and who gives
       * up (store/quota-stream.ts).
       */
      reservedBefore: number;
    };

export interface Usage {
  bytes: number;
  count: number;
}

export interface CatalogStats {
  users: number;
  files: number;
  bytes: number;
  pending: number;
}

export interface UserRecord {
  id: string;
  username: string;
  createdAt: Date;
  quotaBytes: number | null;
  /** Per-user flag overrides as stored (see config/flags.ts for their meaning). */
  flags: Record<string, unknown> | null;
}

/**
 * File metadata for every owner. Every method that reads or changes files takes `owner` and
 * filters on it; only the sweeper and admin queries (`expired`, `sessionFiles`, `stalePending`,
 * `stats`) look across owners.
 */
export interface Catalog {
  /** 'sqlite' | 'postgres', for logs and tests. */
  readonly dialect: string;
  /**
   * The catalog's own database connection, for stores that keep their tables in it (the
   * conversations): one connection pool per database, one migration list. Never for file rows.
   */
  readonly database: { readonly db: Kysely<CatalogTables>; readonly traits: CatalogTraits };
  /** Runs pending migrations; safe to call again and from several instances at once. */
  migrate(): Promise<void>;

  ensureUser(username: string): Promise<string>;
  getUser(id: string): Promise<UserRecord | undefined>;
  updateUser(
    id: string,
    fields: { quotaBytes?: number | null; flags?: Record<string, unknown> | null },
  ): Promise<void>;

  insertPending(row: NewPendingFile): Promise<PendingFile>;
  /**
   * Sets the pending row's quota reservation to `bytes` if they fit, or refuses: what fits is the
   * quota minus every other row of the owner (stored files, and other uploads' reservations).
   * Check and grant are one atomic step per owner, so concurrent uploads, on any connection or
   * instance, never reserve more than the quota together. Also stamps the row's `createdAt` (see
   * {@link stalePending}). A row that is not this owner's pending row is E_FILE_NOT_FOUND.
   */
  reserve(owner: string, id: string, request: ReserveRequest): Promise<Reservation>;
  /**
   * Gives the pending row the next version of its name and makes it visible. Its size replaces
   * whatever it had reserved.
   */
  finalize(owner: string, id: string, fields: FinalizeFields): Promise<FileRecord>;
  /**
   * finalize, unless the latest version of the name already holds the same bytes (equal sha256)
   * and lives at least as long as the new one would (same source; kept across sessions, or
   * session-only in the same session; no earlier expiry): then that version is returned with
   * `reused: true` and the pending row is left for the caller to delete with its blob. Check and
   * claim are one step against concurrent writers: identical uploads racing each other add one
   * version, not several.
   */
  finalizeUnlessIdentical(
    owner: string,
    id: string,
    fields: FinalizeFields,
  ): Promise<{ file: FileRecord; reused: boolean }>;

  // The reads below see ready rows whose `expiresAt` is still ahead of the catalog's clock: an
  // expired file is gone for them at once, whether or not the sweeper has removed it yet.
  get(owner: string, id: string): Promise<FileRecord | undefined>;
  latestByName(owner: string, name: string): Promise<FileRecord | undefined>;
  /** Newest first. */
  versions(owner: string, name: string): Promise<FileRecord[]>;
  list(owner: string, options?: ListOptions): Promise<ListResult>;
  /** Renames every version of the file's name; returns the row `id` after the rename. */
  rename(owner: string, id: string, newName: string): Promise<FileRecord>;

  /** Removes one row (ready or pending); returns the blob keys to delete (empty if none). */
  delete(owner: string, id: string): Promise<string[]>;
  deleteAllVersions(owner: string, name: string): Promise<string[]>;
  /**
   * Removes the user: every file row (ready and pending) and the user row, in one transaction.
   * Returns the blob keys to delete; an unknown owner removes nothing.
   */
  deleteUser(owner: string): Promise<string[]>;

  /** Stored (ready) files only; reservations of uploads in progress are not usage. */
  usage(owner: string): Promise<Usage>;
  /** `bytes` counts stored files only, as usage does. */
  stats(): Promise<CatalogStats>;

  /** Ready rows whose `expiresAt` is before `now`, oldest expiry first. */
  expired(now: Date, limit: number): Promise<FileRecord[]>;
  /** Ready session-only rows of a session (to delete when it ends). */
  sessionFiles(sessionId: string): Promise<FileRecord[]>;
  /**
   * Sessions that still hold session-only files, the newest stored before `lastFileBefore`: what
   * a restarted Ferry (which remembers no session) must end once they have been idle long enough.
   */
  idleSessions(lastFileBefore: Date, limit?: number): Promise<string[]>;
  /**
   * Pending rows inserted, or last given a reservation, before `olderThan`: uploads a crash
   * interrupted. Deleting them gives their reservations back.
   */
  stalePending(olderThan: Date, limit?: number): Promise<PendingFile[]>;

  close(): Promise<void>;
}

/** The blob key layout: opaque ids only, never a user-typed name. */
export function blobKeyFor(owner: string, fileId: string): string {
  return `users/${owner}/${fileId}`;
}
