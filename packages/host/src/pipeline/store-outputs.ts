// Step 5: every collected file into My Files, streamed (DESIGN step 5). base64 is decoded a
// slice at a time, text is encoded a slice at a time, a path is read from the handle
// resolveWorkspaceFile opened (never reopened by name). Same name → a new version (FileStore).
// display.storage_action = temporary → session-only; deferred artifacts expire (v2.1 §7).
//
// Resource links (MCP `resource_link`) are not fetched: reading them needs `resources/read`
// on the connection, which ToolConnection does not offer yet. They are reported as unstored.
import { Readable } from 'node:stream';
import { type DisplayHints, FerryError } from '@ferry/contract';
import type { FileRecord, FileStore, PutOptions } from '@ferry/storage';
import type { CollectedFile, HostRejectedOutput } from './collect-outputs.js';

export interface StoredOutput {
  output: CollectedFile;
  record: FileRecord;
  temporary: boolean;
}

export interface UnstoredOutput {
  name: string;
  origin: CollectedFile['origin'];
  reason: string;
}

export interface StoreOutputsInput {
  files: FileStore;
  owner: string;
  sessionId?: string;
  outputs: CollectedFile[];
  display: DisplayHints;
  signal?: AbortSignal;
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
    const body = bodyOf(output);
    if (!body) {
      result.unstored.push({
        name: output.name,
        origin: output.origin,
        reason: 'resource links are not fetched yet (needs resources/read on the connection)',
      });
      continue;
    }
    const options: PutOptions = {
      mime: output.mime,
      source: output.deferred ? 'deferred' : 'generated',
      category: output.category ?? input.display.categoryHint ?? null,
      description: output.description ?? null,
      sessionId: input.sessionId ?? null,
    };
    if (temporary) options.persist = false;
    if (output.deferred) options.expiresHours = output.deferred.expiresHours;
    if (input.signal) options.signal = input.signal;
    try {
      const record = await input.files.put(input.owner, output.name, body, options);
      const stored = { output, record, temporary };
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

function bodyOf(output: CollectedFile): Readable | undefined {
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
      return undefined;
  }
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
