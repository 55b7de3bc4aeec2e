// FileStore: My Files for everything else in Ferry. It is the front (as unstorage's
// createStorage is): it owns names, versions, owners, limits, retention and tokens, while the blob
// driver sees opaque keys and streams and the catalog sees rows. Every method takes the owner and
// the catalog filters every query on it.
//
// put: normalize name → check owner and limits → pending row → stream through InspectStream (hash,
// size limit, head, table counter) and, under a quota, QuotaStream (reserve as bytes arrive) into
// the blob driver → sniff MIME → info → finalize (next version; an upload whose bytes are already
// the latest version returns that version instead, and its copy goes). Any failure removes the blob
// and the pending row, so nothing half-written is visible and the space it had reserved is free again.
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  FerryError,
  type FileInfo,
  type FileSource,
  formatBytesExact,
  isValidUsername,
  OCTET_STREAM,
  usableFilename,
} from '@ferry/contract';
import type { BlobDriver, ByteRange } from '../blob/driver.js';
import type { Catalog, FileRecord, ListOptions, ListResult, Usage } from '../catalog/types.js';
import { type EffectiveFlags, effectiveFlags } from '../config/flags.js';
import type { StorageConfig } from '../config/schema.js';
import type { TokenSigner, TokenVerification } from '../tokens/token-signer.js';
import { readBlobRange, resolveRange } from './byte-range.js';
import { createInfoCollector } from './info-collector.js';
import { InspectStream } from './inspect-stream.js';
import { createQuotaStream } from './quota-stream.js';
import { sniffMime } from './sniff-mime.js';

export interface FileStoreOptions {
  blobs: BlobDriver;
  catalog: Catalog;
  config: StorageConfig;
  tokens: TokenSigner;
  /**
   * Stamps expiries and drives the sweep. The catalog decides what has expired for reads by its
   * own clock: give both the same one (openStorage does). @default () => new Date()
   */
  now?: () => Date;
  /** Pending rows and partial blobs older than this are crash leftovers. @default 1 hour */
  pendingGraceMs?: number;
}

export interface PutOptions {
  /** The type the uploader or tool claims; magic bytes win over a generic or wrong claim. */
  mime?: string;
  /** @default 'uploaded' */
  source?: FileSource;
  category?: string | null;
  description?: string | null;
  sessionId?: string | null;
  /** false = deleted when the session ends. @default the persist_files_across_sessions flag */
  persist?: boolean;
  /** Explicit expiry; deferred files default to now + expiresHours. */
  expiresAt?: Date | null;
  /** For deferred files. @default the deferred_expires_hours flag (72) */
  expiresHours?: number;
  /** For deferred files: why it waits and what can be done next, kept in the file's info. */
  deferred?: { reason?: string; nextActions?: string[] };
  /** Aborting stops the upload and removes every partial byte. */
  signal?: AbortSignal;
  /**
   * When the latest version of the name already holds these bytes (same SHA-256) and lives at
   * least as long, return it (`unchanged: true`) instead of adding a version; nothing new is kept.
   * @default true for uploads (source 'uploaded'), false for tool outputs
   */
  reuseIdentical?: boolean;
}

/** What put stored, or the existing version it found identical. */
export type PutResult = FileRecord & {
  /** true: the bytes were already the latest version of the name, which is returned; nothing was added. */
  unchanged?: true;
};

/** A file by id, or by name (latest version unless `version` is given). */
export type FileRef = { id: string } | { name: string; version?: number };

export interface FileContent {
  file: FileRecord;
  stream: Readable;
  /** The inclusive range served, when a range was asked for. */
  range?: { start: number; end: number };
}

export interface SweepResult {
  expired: number;
  pending: number;
  partials: number;
  /** Steps the backend could not do (e.g. an S3 server without ListMultipartUploads). */
  warnings: string[];
}

export interface FileStore {
  ensureUser(username: string): Promise<string>;
  flags(owner: string): Promise<Readonly<EffectiveFlags>>;
  put(owner: string, name: string, body: Readable, options?: PutOptions): Promise<PutResult>;
  stat(owner: string, ref: FileRef): Promise<FileRecord>;
  get(owner: string, ref: FileRef, options?: { range?: ByteRange }): Promise<FileContent>;
  list(owner: string, options?: ListOptions): Promise<ListResult>;
  versions(owner: string, name: string): Promise<FileRecord[]>;
  /** The file a tool argument names: exact name first, then its normalized form; latest version. */
  resolve(owner: string, name: string): Promise<FileRecord | undefined>;
  rename(owner: string, id: string, newName: string): Promise<FileRecord>;
  /** Deletes one version. */
  delete(owner: string, id: string): Promise<void>;
  /** Deletes every version of a name; returns how many. */
  deleteAllVersions(owner: string, name: string): Promise<number>;
  /**
   * Deletes the user and everything of theirs in the store: every file (all versions, session
   * and deferred ones, uploads still pending) and its blob, then the user row; returns how many
   * files. An unknown owner is a no-op (0). The owner id is not reused: the same username comes
   * back as a new, empty user.
   */
  deleteUser(owner: string): Promise<number>;
  usage(owner: string): Promise<Usage & { quotaBytes: number | null }>;
  stats(): ReturnType<Catalog['stats']>;
  /** Deletes the session-only files of a session; returns how many. */
  endSession(sessionId: string): Promise<number>;
  /** Sessions with session-only files whose newest was stored before `lastFileBefore`. */
  idleSessions(lastFileBefore: Date): Promise<string[]>;
  /**
   * Reclaims the space of expired files (already invisible to every read), crash leftovers and
   * partial blobs.
   */
  sweep(): Promise<SweepResult>;
  signDownload(owner: string, fileId: string, ttlSeconds?: number): string;
  verifyDownload(token: unknown, expected: { owner?: string; fileId: string }): TokenVerification;
  close(): Promise<void>;
}

export function createFileStore(options: FileStoreOptions): FileStore {
  const { blobs, catalog, config, tokens } = options;
  const now = options.now ?? (() => new Date());
  const graceMs = options.pendingGraceMs ?? 3_600_000;

  const userOf = async (owner: string) => {
    const user = typeof owner === 'string' && owner !== '' ? await catalog.getUser(owner) : undefined;
    if (!user) throw new FerryError('E_INVALID_INPUT', `Unknown owner: ${String(owner)}`, { field: 'owner' });
    return user;
  };

  const flagsOf = async (owner: string) => {
    const user = await userOf(owner);
    return effectiveFlags(config, user.flags, user.quotaBytes);
  };

  const stat = async (owner: string, ref: FileRef): Promise<FileRecord> => {
    let record: FileRecord | undefined;
    if ('id' in ref) record = await catalog.get(owner, ref.id);
    else if (ref.version === undefined) record = await latestByEitherName(owner, ref.name);
    else
      record = (await catalog.versions(owner, storedName(ref.name))).find(
        (row) => row.version === ref.version,
      );
    if (!record) {
      const what =
        'id' in ref ? ref.id : `${ref.name}${ref.version === undefined ? '' : ` (version ${ref.version})`}`;
      throw new FerryError('E_FILE_NOT_FOUND', `File not found: ${what}`, { name: what });
    }
    return record;
  };

  // Tool arguments and API paths may carry the name as typed or as stored.
  const latestByEitherName = async (owner: string, name: string) =>
    (await catalog.latestByName(owner, name)) ?? (await catalog.latestByName(owner, storedName(name)));

  const removeRow = async (owner: string, id: string) => {
    for (const key of await catalog.delete(owner, id)) await blobs.delete(key);
  };

  const put = async (
    owner: string,
    rawName: string,
    body: Readable,
    opts: PutOptions = {},
  ): Promise<PutResult> => {
    const name = checkedName(rawName);
    const flags = await flagsOf(owner);
    const source = opts.source ?? 'uploaded';
    const expiresAt =
      opts.expiresAt !== undefined
        ? opts.expiresAt
        : source === 'deferred'
          ? new Date(now().getTime() + (opts.expiresHours ?? flags.deferred_expires_hours) * 3_600_000)
          : null;
    const pending = await catalog.insertPending({
      owner,
      name,
      mime: opts.mime ?? OCTET_STREAM,
      source,
      category: opts.category ?? null,
      description: opts.description ?? null,
      sessionId: opts.sessionId ?? null,
      persist: opts.persist ?? flags.persist_files_across_sessions,
      expiresAt,
    });
    try {
      const collector = createInfoCollector(opts.mime, name);
      const maxFileBytes = flags.max_file_size_bytes;
      const inspector = new InspectStream(maxFileBytes, tooLarge(maxFileBytes), collector.observer);
      const quotaBytes = flags.user_quota_bytes;
      // Every version counts toward the quota, as every stored row does.
      const quota =
        quotaBytes === null
          ? undefined
          : createQuotaStream({ catalog, owner, pendingId: pending.id, quotaBytes, signal: opts.signal });
      await streamInto(blobs, pending.blobKey, body, inspector, quota, opts.signal);
      const { size, sha256, head } = inspector.result();
      const mime = await sniffMime(head, opts.mime, name);
      const info = await collector.info({
        mime,
        name,
        size,
        head,
        readRange: (start, end) => readBlobRange(blobs, pending.blobKey, start, end),
      });
      const deferred = deferredInfo(opts.deferred);
      const fields = { size, sha256, mime, info: deferred ? { ...info, ...deferred } : info };
      if (!(opts.reuseIdentical ?? source === 'uploaded'))
        return await catalog.finalize(owner, pending.id, fields);
      const { file, reused } = await catalog.finalizeUnlessIdentical(owner, pending.id, fields);
      if (!reused) return file;
      // The same bytes are already the current version: the copy just streamed goes again, as a
      // failed upload's would (a leftover is swept with the stale pending rows).
      await blobs.delete(pending.blobKey).catch(() => undefined);
      await catalog.delete(owner, pending.id).catch(() => undefined);
      return { ...file, unchanged: true };
    } catch (error) {
      await blobs.delete(pending.blobKey).catch(() => undefined);
      await catalog.delete(owner, pending.id).catch(() => undefined);
      throw error;
    }
  };

  return {
    ensureUser: async (username) => {
      if (!isValidUsername(username)) {
        throw new FerryError('E_INVALID_INPUT', `Invalid username: ${JSON.stringify(username)}`, {
          field: 'username',
        });
      }
      return catalog.ensureUser(username);
    },
    flags: flagsOf,
    put,
    stat,
    get: async (owner, ref, opts = {}) => {
      const file = await stat(owner, ref);
      if (opts.range === undefined) return { file, stream: await blobs.get(file.blobKey) };
      const range = resolveRange(opts.range, file.size);
      return { file, range, stream: await blobs.get(file.blobKey, range) };
    },
    list: (owner, opts) => catalog.list(owner, opts),
    versions: (owner, name) => catalog.versions(owner, storedName(name)),
    resolve: latestByEitherName,
    rename: async (owner, id, newName) => catalog.rename(owner, id, checkedName(newName)),
    delete: async (owner, id) => {
      await stat(owner, { id });
      await removeRow(owner, id);
    },
    deleteAllVersions: async (owner, name) => {
      const keys = await catalog.deleteAllVersions(owner, storedName(name));
      for (const key of keys) await blobs.delete(key);
      return keys.length;
    },
    deleteUser: async (owner) => {
      // Rows first: a reader can no longer reach a file whose blob is about to go.
      const keys = await catalog.deleteUser(owner);
      for (const key of keys) await blobs.delete(key);
      return keys.length;
    },
    usage: async (owner) => {
      const flags = await flagsOf(owner);
      return { ...(await catalog.usage(owner)), quotaBytes: flags.user_quota_bytes };
    },
    stats: () => catalog.stats(),
    idleSessions: (lastFileBefore) => catalog.idleSessions(lastFileBefore),
    endSession: async (sessionId) => {
      const files = await catalog.sessionFiles(sessionId);
      for (const file of files) await removeRow(file.owner, file.id);
      return files.length;
    },
    sweep: async () => {
      const result: SweepResult = { expired: 0, pending: 0, partials: 0, warnings: [] };
      for (
        let batch = await catalog.expired(now(), 500);
        batch.length > 0;
        batch = await catalog.expired(now(), 500)
      ) {
        for (const file of batch) await removeRow(file.owner, file.id);
        result.expired += batch.length;
      }
      const cutoff = new Date(now().getTime() - graceMs);
      for (const row of await catalog.stalePending(cutoff)) {
        await blobs.delete(row.blobKey);
        await catalog.delete(row.owner, row.id);
        result.pending++;
      }
      try {
        result.partials = (await blobs.sweepPartials?.(graceMs)) ?? 0;
      } catch (error) {
        // Leftover parts cost space but are invisible to users; the rest of the sweep stands.
        result.warnings.push(`[${blobs.name}] could not sweep partial uploads: ${(error as Error).message}`);
      }
      return result;
    },
    signDownload: (owner, fileId, ttlSeconds) => tokens.sign({ owner, fileId, ttlSeconds }),
    verifyDownload: (token, expected) => tokens.verify(token, expected),
    close: async () => {
      await catalog.close();
      await blobs.close?.();
    },
  };
}

function tooLarge(max: number): (size: number) => Error {
  return (size) =>
    new FerryError('E_FILE_TOO_LARGE', `File exceeds the limit of ${formatBytesExact(max)}`, {
      file_size_bytes: size,
      current_limit_bytes: max,
    });
}

/**
 * The stored form of a name someone typed, for lookups. A name with nothing usable in it names no
 * file (stored names are never empty), rather than whatever is stored as `file`.
 */
function storedName(name: string): string {
  return usableFilename(name) ?? '';
}

/**
 * Every incoming name (upload, rename, tool output) goes through the contract's normalizer, the
 * same for every way a name enters: `..\..\windows\system32\file` and `a/file` are stored as
 * `file`. A name with nothing usable in it (`../..`, `///`, `...`) is refused rather than stored
 * under a made-up name.
 */
function checkedName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new FerryError('E_INVALID_INPUT', 'A file name is required', { field: 'name' });
  }
  const name = usableFilename(raw);
  if (name === undefined) {
    throw new FerryError(
      'E_INVALID_INPUT',
      `File name ${JSON.stringify(raw.slice(0, 100))} has no usable characters`,
      { field: 'name' },
    );
  }
  return name;
}

/**
 * Pipes `body` through the inspector (and the quota stage, if any) into the driver. Whichever side
 * fails first, all are torn down; the error that explains the failure (a FerryError such as
 * E_FILE_TOO_LARGE or E_QUOTA_EXCEEDED) is the one reported.
 */
async function streamInto(
  blobs: BlobDriver,
  key: string,
  body: Readable,
  inspector: InspectStream,
  quota: Transform | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const stages = quota ? [inspector, quota] : [inspector];
  const last = quota ?? inspector;
  const piping = pipeline([body, ...stages], signal ? { signal } : {}).then(
    () => undefined,
    (error: unknown) => error,
  );
  let stored: { size: number };
  try {
    stored = await blobs.put(key, last, signal ? { signal } : {});
  } catch (error) {
    for (const stage of stages) stage.destroy();
    body.destroy();
    const pipeError = await piping;
    // The pipe torn down because the driver stopped reading (the store failed mid-file) says
    // only that; the driver's error says why. An abort by the put's own signal is the reason.
    const inputError = isTeardown(pipeError) && !signal?.aborted ? undefined : pipeError;
    throw pipeError instanceof FerryError
      ? pipeError
      : error instanceof FerryError
        ? error
        : (inputError ?? storeFailure(error, signal));
  }
  const pipeError = await piping;
  if (pipeError) throw pipeError;
  const { size } = inspector.result();
  if (stored.size !== size)
    throw new Error(`[ferry/storage] blob driver stored ${stored.size} of ${size} bytes`);
}

/**
 * The store's own failure as the contract's code: no room left (ENOSPC, EDQUOT) or a store out of
 * reach (a refused or dropped connection, a timeout, an S3 5xx). The cause stays on the error for
 * the log; the client sees the code's own words, never a host or bucket name. Anything else (and
 * an abort the caller asked for) is passed on as it is.
 */
function storeFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  let mapped: FerryError | undefined;
  if (code === 'ENOSPC' || code === 'EDQUOT') mapped = new FerryError('E_STORAGE_FULL');
  else if (
    (typeof code === 'string' && UNREACHABLE.has(code)) ||
    error.name === 'TimeoutError' ||
    (typeof status === 'number' && status >= 500)
  ) {
    mapped = new FerryError('E_STORAGE_UNAVAILABLE');
  }
  if (!mapped) return error;
  mapped.cause = error;
  return mapped;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What a pipeline rejects with when a stage is destroyed under it rather than failing itself. */
function isTeardown(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'ABORT_ERR' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

const MAX_DEFERRED_TEXT = 200;
const MAX_NEXT_ACTIONS = 10;

/** A tool's words, bounded: they go into every prompt's file block. */
function deferredInfo(deferred: PutOptions['deferred']): FileInfo | undefined {
  if (!deferred) return undefined;
  const clip = (text: string) =>
    text
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim()
      .slice(0, MAX_DEFERRED_TEXT);
  const reason = typeof deferred.reason === 'string' ? clip(deferred.reason) : '';
  const nextActions = (Array.isArray(deferred.nextActions) ? deferred.nextActions : [])
    .filter((action): action is string => typeof action === 'string')
    .map(clip)
    .filter(Boolean)
    .slice(0, MAX_NEXT_ACTIONS);
  const info: FileInfo = {};
  if (reason) info.deferredReason = reason;
  if (nextActions.length > 0) info.nextActions = nextActions;
  return Object.keys(info).length > 0 ? info : undefined;
}
