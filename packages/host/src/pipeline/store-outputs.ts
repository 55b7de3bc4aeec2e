// Step 5: every collected file into My Files, streamed (DESIGN step 5). base64 is decoded a
// slice at a time, text is encoded a slice at a time, a path is read from the handle
// resolveWorkspaceFile opened (never reopened by name). Same name → a new version (FileStore).
// display.storage_action = temporary → session-only; deferred artifacts expire (v2.1 §7).
// Resource links (MCP `resource_link`) are read from the same server with `resources/read` (the
// tool's own server, never a URL Ferry would fetch itself); a link that cannot be read is reported
// as unstored with the server's reason. Their contents come whole in one MCP message.
import { Readable } from 'node:stream';
import { type DisplayHints, FerryError, type HostRejectedOutput, type UnstoredOutput } from '@ferry/contract';
import type { FileRecord, FileStore, PutOptions } from '@ferry/storage';
import type { ResourceContents } from '../connections/connection.js';
import type { CollectedFile } from './collect-outputs.js';

/**
 * A collected file and the record it was stored as. Whether it is session-only is the record's
 * `persist` (false: temporary), as everywhere Ferry shows a file: storage_action=temporary, the
 * persist_files_across_sessions flag and a reused earlier version all end up there.
 */
export interface StoredOutput {
  output: CollectedFile;
  record: FileRecord;
}

export interface StoreOutputsInput {
  files: FileStore;
  owner: string;
  sessionId?: string;
  outputs: CollectedFile[];
  display: DisplayHints;
  signal?: AbortSignal;
  /** `resources/read` on the tool's server; absent: resource links stay unstored. */
  readResource?: (uri: string) => Promise<ResourceContents[]>;
  /** Called after each file is stored (the pipeline emits `file_stored`). */
  onStored?: (stored: StoredOutput) => void;
}

export interface StoreOutputsResult {
  stored: StoredOutput[];
  rejected: HostRejectedOutput[];
  unstored: UnstoredOutput[];
}

/** 48 KiB of bytes per base64 slice: a multiple of 3, so slices decode independently. */
const BASE64_SLICE_CHARS = 64 * 1024;
const TEXT_SLICE_CHARS = 64 * 1024;

export async function storeOutputs(input: StoreOutputsInput): Promise<StoreOutputsResult> {
  const result: StoreOutputsResult = { stored: [], rejected: [], unstored: [] };
  const temporary = input.display.storageAction === 'temporary';
  for (const output of input.outputs) {
    let body: Readable;
    let mime = output.mime;
    if (output.source.kind === 'resource_link') {
      const read = await readLinked(output.source.uri, input.readResource);
      if (!read.ok) {
        if (input.signal?.aborted) throw input.signal.reason;
        result.unstored.push({ name: output.name, origin: output.origin, reason: read.reason });
        continue;
      }
      body = read.body;
      mime = read.mime ?? mime;
    } else {
      body = bodyOf(output);
    }
    const options: PutOptions = {
      mime,
      source: output.deferred ? 'deferred' : 'generated',
      category: output.category ?? input.display.categoryHint ?? null,
      description: output.description ?? null,
      sessionId: input.sessionId ?? null,
    };
    if (temporary) options.persist = false;
    if (output.deferred) {
      options.expiresHours = output.deferred.expiresHours;
      options.deferred = {
        ...(output.deferred.reason !== undefined && { reason: output.deferred.reason }),
        nextActions: output.deferred.nextActions,
      };
    }
    if (input.signal) options.signal = input.signal;
    try {
      const record = await input.files.put(input.owner, output.name, body, options);
      const stored = { output, record };
      result.stored.push(stored);
      input.onStored?.(stored);
    } catch (error) {
      body.destroy();
      if (input.signal?.aborted) throw error;
      const ferry = error instanceof FerryError ? error : undefined;
      result.rejected.push({
        origin: output.origin,
        name: output.name,
        code: ferry?.code ?? 'E_INTERNAL',
        reason: ferry?.message ?? `could not be stored: ${(error as Error).message}`,
        ...(ferry ? { error: ferry.toEnvelope() } : {}),
      });
    }
  }
  return result;
}

function bodyOf(output: CollectedFile): Readable {
  const source = output.source;
  switch (source.kind) {
    case 'base64':
      return Readable.from(base64Slices(source.base64), { objectMode: false });
    case 'text':
      return Readable.from(textSlices(source.text), { objectMode: false });
    case 'path':
      if (!output.opened) throw new Error(`[ferry/host] ${output.name}: path output was not opened`);
      return output.opened.createReadStream();
    case 'resource_link':
      throw new Error(`[ferry/host] ${output.name}: resource links are read with readLinked`);
  }
}

type LinkedRead = { ok: true; body: Readable; mime?: string } | { ok: false; reason: string };

/** The first content item of the linked resource (a link names one resource). */
async function readLinked(uri: string, readResource: StoreOutputsInput['readResource']): Promise<LinkedRead> {
  if (!readResource) return { ok: false, reason: 'resource links cannot be read here (no resources/read)' };
  let contents: ResourceContents[];
  try {
    contents = await readResource(uri);
  } catch (error) {
    return { ok: false, reason: `resources/read of ${uri} failed: ${(error as Error).message}` };
  }
  const item = contents.find((candidate) => candidate.uri === uri) ?? contents[0];
  if (item === undefined) return { ok: false, reason: `resources/read of ${uri} returned no contents` };
  const mime = item.mimeType ? { mime: item.mimeType } : {};
  if ('blob' in item) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(item.blob) || item.blob.length % 4 !== 0) {
      return { ok: false, reason: `resources/read of ${uri} returned invalid base64` };
    }
    return { ok: true, body: Readable.from(base64Slices(item.blob), { objectMode: false }), ...mime };
  }
  return { ok: true, body: Readable.from(textSlices(item.text), { objectMode: false }), ...mime };
}

/** The contract hands over validated base64 without whitespace, padding only at the end. */
function* base64Slices(base64: string): Generator<Buffer> {
  for (let at = 0; at < base64.length; at += BASE64_SLICE_CHARS) {
    yield Buffer.from(base64.slice(at, at + BASE64_SLICE_CHARS), 'base64');
  }
}

function* textSlices(text: string): Generator<Buffer> {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + TEXT_SLICE_CHARS);
    // Never split a surrogate pair: each half alone would become U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield Buffer.from(text.slice(at, end), 'utf8');
    at = end;
  }
}
