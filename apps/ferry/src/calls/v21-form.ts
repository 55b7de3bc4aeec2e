// A settled call as a tool contract v2.1 output (GET /api/calls/:id?form=v2.1; the shape:
// @ferry/contract CallV21FormSchema). Ferry stores every file in My Files and answers with ids;
// clients written against the spec expect §6.2's processed artifacts instead: `b64` for a file of
// at most base64_size_limit_mb, an internal storage reference above it. The answer is written as a
// stream, piece by piece: the JSON around the files, then each inline file's bytes read from the
// store and base64-encoded chunk by chunk, so a 300 MB limit never puts a file in memory.
// Everything that can fail cleanly (a file deleted since the call) is looked up before the first
// byte; a blob that turns out shorter or longer than its catalog row breaks the stream instead of
// ending it as if it were whole.
import { Readable } from 'node:stream';
import {
  type CallV21Form,
  type DisplayHints,
  FerryError,
  type ToolCallResponse,
  type UiFile,
  type V21OutputFile,
} from '@ferry/contract';
import type { FileRecord, FileStore } from '@ferry/storage';
import { base64Chunks } from './base64-chunks.js';

export interface V21FormInput {
  response: ToolCallResponse;
  files: Pick<FileStore, 'stat' | 'get'>;
  owner: string;
  /** base64_size_limit_mb in bytes: files of at most this size go inline. */
  base64LimitBytes: number;
  /** The API path a stored file downloads from (the reference's `url`). */
  contentPath(fileId: string): string;
}

type Entry = { head: V21OutputFile; inline?: undefined } | { head: V21OutputFile; inline: FileRecord };

/** The answer as a byte stream of JSON; rejects only when the file store itself fails. */
export async function v21FormStream(input: V21FormInput): Promise<Readable> {
  const { response } = input;
  const files = response.forUi.files;
  const artifacts = await Promise.all(files.filter((f) => !f.deferred).map((f) => entryFor(f, input)));
  const deferred = await Promise.all(files.filter((f) => f.deferred).map((f) => entryFor(f, input)));
  const top = topLevel(response);
  // Object mode: each piece of text goes to the socket as it is (the response encodes strings
  // natively), instead of being copied into a Buffer first.
  return Readable.from(writeForm(top, artifacts, deferred, input));
}

/** The fields around the files, in the spec's order (§1.1). */
function topLevel(response: ToolCallResponse): Omit<CallV21Form, 'artifacts' | 'deferred_artifacts'> {
  const { forModel, forUi } = response;
  const top: Omit<CallV21Form, 'artifacts' | 'deferred_artifacts'> = {
    results: forModel.results ?? null,
    display: displayOf(forUi.display),
  };
  const meta = metaDataOf(response);
  if (meta) top.meta_data = meta;
  if (forUi.retryable !== undefined) top.retryable = forUi.retryable;
  if (forUi.canvas) top.canvas = forUi.canvas;
  return top;
}

/**
 * The tool's meta_data; for a call that failed as a whole, its §12 envelope's; for a tool error
 * whose meta_data does not say so, the §12 facts added (is_error, error_code, retryable).
 */
function metaDataOf({ forModel, forUi }: ToolCallResponse): Record<string, unknown> | undefined {
  if (forUi.error) return forUi.error.meta_data;
  const meta = forUi.metaData;
  if (!forModel.isError || meta?.is_error === true) return meta;
  const error = forModel.error;
  return {
    ...meta,
    is_error: true,
    ...(error ? { error_code: error.code, retryable: error.retryable } : {}),
    ...(error?.suggestion ? { details: { suggestion: error.suggestion } } : {}),
  };
}

function displayOf(display: DisplayHints): CallV21Form['display'] {
  const out: CallV21Form['display'] = { open_canvas: display.openCanvas };
  if (display.primaryFile !== undefined) out.primary_file = display.primaryFile;
  if (display.mode !== undefined) out.mode = display.mode;
  if (display.viewerHint !== undefined) out.viewer_hint = display.viewerHint;
  out.storage_action = display.storageAction;
  if (display.categoryHint !== undefined) out.category_hint = display.categoryHint;
  if (display.notification !== undefined) out.notification = display.notification;
  return out;
}

async function entryFor(file: UiFile, input: V21FormInput): Promise<Entry> {
  const head: V21OutputFile = {
    name: file.name,
    mime: file.mime,
    size: file.size,
    ...(file.description === undefined ? {} : { description: file.description }),
    ...(file.category === undefined ? {} : { category: file.category }),
    auto_open: file.autoOpen,
    viewer: file.viewer,
  };
  let record: FileRecord;
  try {
    record = await input.files.stat(input.owner, { id: file.id });
  } catch (error) {
    if (error instanceof FerryError && error.code === 'E_FILE_NOT_FOUND') {
      return { head: { ...head, unavailable: 'deleted from My Files since the call' } };
    }
    throw error;
  }
  head.size = record.size;
  if (file.deferred) {
    if (record.info?.deferredReason !== undefined) head.reason = record.info.deferredReason;
    head.next_actions = record.info?.nextActions ?? [];
    head.expires_at = record.expiresAt ? record.expiresAt.toISOString() : null;
  }
  if (record.size <= input.base64LimitBytes) return { head, inline: record };
  head.s3_ref = {
    file_id: record.id,
    version: record.version,
    url: input.contentPath(record.id),
    internal: true,
  };
  return { head };
}

async function* writeForm(
  top: Omit<CallV21Form, 'artifacts' | 'deferred_artifacts'>,
  artifacts: Entry[],
  deferred: Entry[],
  input: V21FormInput,
): AsyncGenerator<string> {
  const { display, canvas, ...rest } = top;
  // §1.1's order: `{"results":…,"meta_data":…,"retryable":…`, artifacts, display, deferred.
  yield JSON.stringify(rest).slice(0, -1);
  yield* writeList('artifacts', artifacts, input);
  yield `,"display":${JSON.stringify(display)}`;
  yield* writeList('deferred_artifacts', deferred, input);
  if (canvas) yield `,"canvas":${JSON.stringify(canvas)}`;
  yield '}';
}

async function* writeList(key: string, entries: Entry[], input: V21FormInput): AsyncGenerator<string> {
  yield `,${JSON.stringify(key)}:[`;
  for (const [index, entry] of entries.entries()) {
    if (index > 0) yield ',';
    if (!entry.inline) {
      yield JSON.stringify(entry.head);
      continue;
    }
    // The head without its closing brace, then `"b64"` last, so the bytes stream at the end.
    yield `${JSON.stringify(entry.head).slice(0, -1)},"b64":"`;
    yield* fileBase64(entry.inline, input);
    yield '"}';
  }
  yield ']';
}

async function* fileBase64(record: FileRecord, input: V21FormInput): AsyncGenerator<string> {
  const { stream } = await input.files.get(input.owner, { id: record.id });
  let read = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > record.size) throw blobMismatch(record, read);
      yield chunk;
    }
  }
  try {
    yield* base64Chunks(counted());
    if (read !== record.size) throw blobMismatch(record, read);
  } finally {
    // The client went away, or the stream failed: let go of the blob.
    stream.destroy();
  }
}

function blobMismatch(record: FileRecord, read: number): Error {
  return new Error(
    `The stored bytes of file ${record.id} do not match its catalog size (${record.size} bytes, read ${read})`,
  );
}
