// Between storing the files and answering: a result too large for the model becomes a file too.
// When the model's answer (the redacted results, beside the stored file names) would be longer
// than `maxChars`, the tool's exact result is stored in My Files as `<tool>-result-<id>.json`
// (structured) or `.txt` (plain text), by the same rules as the tool's own files (storage_action,
// session, quota), and the model gets a note naming the file and the result's beginning, so it can
// hand the whole result to a tool that reads files instead of working from a cut copy. The file
// keeps the tool's bytes (it is the user's data); only the preview is redacted. If storing fails
// (quota, size limit), the model gets the beginning and a note saying why, the UI a warning.
//
// The result is already in memory (at most maxResultBytes): it is serialized once and written
// from that string a slice at a time (store-outputs.ts); the preview serializes only what it keeps.
import {
  ERROR_CODES,
  formatBytes,
  formatBytesExact,
  isFerryErrorCode,
  MODEL_META_DATA_MAX_BYTES,
  normalizeFilename,
  type ToolOutcome,
  viewerForFile,
} from '@ferry/contract';
import type { CollectedFile } from './collect-outputs.js';
import { fitsAsJsonString, jsonPrefix, previewOf } from './model-preview.js';
import { type Redaction, redactString } from './redact-for-model.js';
import { type StoredOutput, type StoreOutputsInput, storeOutputs } from './store-outputs.js';

export interface StoreLargeResultInput {
  outcome: ToolOutcome;
  redaction: Redaction;
  /** The tool's name, the file name's stem. */
  tool: string;
  callId: string;
  /** Longest text of an answer the model is given (DEFAULT_MODEL_RESULT_CHARS). */
  maxChars: number;
  /** The files the call stored: the model's answer lists them beside the results. */
  stored: readonly StoredOutput[];
  /** Where and how to store: as for the tool's own files. */
  store: Omit<StoreOutputsInput, 'outputs' | 'readResource'>;
}

export interface ModelResults {
  /** The model's `results`: the redacted result, or a note with the result's beginning. */
  results: unknown;
  /** The whole result in My Files, when it was too large and could be stored. */
  stored?: StoredOutput;
  /** For the UI: why the model got only the beginning of a result that was not stored. */
  warnings: string[];
}

/**
 * Room in the model's text for what surrounds the results: the agent writes `status`, the file
 * list, `is_error` and `error` beside them (packages/agent/src/tool-result.ts).
 */
const ENVELOPE_CHARS = 256;

export async function storeLargeResult(input: StoreLargeResultInput): Promise<ModelResults> {
  const { outcome, maxChars, redaction } = input;
  const room = Math.max(0, maxChars - answerReserve(outcome, input.stored));
  // What the model would read, redacted as far as it is written: a text result whole, a JSON
  // result up to one character past the room (its beginning is the preview).
  let beginning: string;
  if (typeof outcome.results === 'string') {
    beginning = redactString(outcome.results, redaction);
    if (fitsAsJsonString(beginning, room)) return { results: beginning, warnings: [] };
  } else {
    const shown = jsonPrefix(outcome.results, room, (text, label) => redactString(text, redaction, label));
    if (shown.complete) return { results: JSON.parse(shown.text), warnings: [] };
    beginning = shown.text;
  }

  // The one serialization of the whole result; a text result is stored as the text itself.
  const json = typeof outcome.results !== 'string';
  const text = json ? JSON.stringify(outcome.results) : (outcome.results as string);
  const bytes = Buffer.byteLength(text);
  const output = resultFile(input.tool, input.callId, json, text, bytes);
  const put = await storeOutputs({ ...input.store, outputs: [output] });
  const stored = put.stored[0];

  // The preview fills what the note and the file's entry in the answer leave.
  const shape = (preview: string): Record<string, unknown> =>
    stored
      ? { note: storedNote(stored, bytes), file: stored.record.name, bytes: stored.record.size, preview }
      : { note: cutNote(bytes, put.rejected[0]?.code), bytes, preview };
  const listed = stored ? JSON.stringify(fileEntry(stored)).length + 1 : 0;
  const budget = room - listed - JSON.stringify(shape('')).length;
  const results = shape(previewOf(beginning, budget, json));
  if (stored) return { results, stored, warnings: [] };
  const reason = put.rejected[0]?.reason ?? 'it was not stored';
  return {
    results,
    warnings: [
      `The result (${formatBytesExact(bytes)}) is too large for the model and could not be stored in My Files: ${reason}. The model was given its beginning only.`,
    ],
  };
}

/**
 * What the rest of the model's answer takes: the names and descriptions of the stored files, the
 * tool's meta_data as far as the model is shown it, and the envelope.
 */
function answerReserve(outcome: ToolOutcome, stored: readonly StoredOutput[]): number {
  const files = JSON.stringify(stored.map(fileEntry)).length;
  const metaData = outcome.metaData
    ? Math.min(JSON.stringify(outcome.metaData).length, MODEL_META_DATA_MAX_BYTES + ENVELOPE_CHARS)
    : 0;
  return ENVELOPE_CHARS + files + metaData;
}

/** A stored file as the model's answer lists it (answer.ts). */
function fileEntry({ record }: StoredOutput): { name: string; description?: string } {
  return record.description ? { name: record.name, description: record.description } : { name: record.name };
}

function resultFile(tool: string, callId: string, json: boolean, text: string, bytes: number): CollectedFile {
  const name = normalizeFilename(`${tool}-result-${shortId(callId)}.${json ? 'json' : 'txt'}`);
  const mime = json ? 'application/json' : 'text/plain';
  return {
    name,
    originalName: name,
    mime,
    size: bytes,
    description: `The full result of ${tool} (${formatBytes(bytes)}), too large for the model to read whole`,
    viewer: viewerForFile({ mime, name }),
    category: 'data',
    autoOpen: false,
    origin: 'result',
    source: { kind: 'text', text, byteLength: bytes },
  };
}

/** Eight letters or digits of the call's id: the file names the call it came from. */
function shortId(callId: string): string {
  const id = callId
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 8)
    .toLowerCase();
  return id === '' ? 'call' : id;
}

function storedNote({ record }: StoredOutput, bytes: number): string {
  return `This result is too large to show here. The full result, ${formatBytesExact(bytes)}, is in My Files as ${record.name}; pass that name to a tool that reads files. "preview" is its beginning.`;
}

/** The code's short message only: the detailed reason may name sizes and paths of the store. */
function cutNote(bytes: number, code: string | undefined): string {
  const why = code && isFerryErrorCode(code) ? ERROR_CODES[code].message.toLowerCase() : 'an error';
  return `This result, ${formatBytesExact(bytes)}, is too large to show here and could not be stored in My Files (${why}). "preview" is its beginning; ask the tool for a smaller result if you need the rest.`;
}
