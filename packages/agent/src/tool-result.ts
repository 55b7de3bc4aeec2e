// What the model reads back from a tool call: the host's answer for the model (results, stored
// file names and descriptions, the error with its suggestion), scrubbed once more and cut to a
// size the context can take, with a note saying so. Never the UI answer: that one holds ids,
// display hints and, for small files, bytes. The host already sized the results to the same
// limit (a larger result is a file in My Files; the model gets its beginning and the name), so
// the cut here is a last guard, and the size of the loop's own error texts.
import type { ToolCallResponse } from '@ferry/contract';
import { type ScrubOptions, scrubValue } from './scrub.js';

export interface ToolResultOptions extends ScrubOptions {
  maxChars: number;
}

export function toolResultText(response: ToolCallResponse, options: ToolResultOptions): string {
  const model = response.forModel;
  const payload: Record<string, unknown> = { status: response.status, results: model.results };
  // The tool's small facts, or the host's note that they were over the cap (MODEL_META_DATA_MAX_BYTES).
  const metaData = model.metaData ?? model.metaDataNote;
  if (metaData !== undefined) payload.meta_data = metaData;
  if (model.files.length > 0) payload.files = model.files;
  if (model.isError) payload.is_error = true;
  if (model.error) payload.error = model.error;
  if (model.notStored && model.notStored.length > 0) payload.not_stored = model.notStored;
  return fitText(JSON.stringify(scrubValue(payload, options)), options.maxChars);
}

/** A result the loop makes itself (unknown tool, bad arguments): same shape as the host's. */
export function loopErrorText(code: string, message: string, options: ToolResultOptions): string {
  return fitText(
    JSON.stringify(scrubValue({ status: 'failed', is_error: true, error: { code, message } }, options)),
    options.maxChars,
  );
}

/** Cuts `text` to at most `maxChars` characters, the note included. */
export function fitText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = (shown: number) =>
    `\n[truncated by Ferry: the result has ${text.length} characters, only the first ${shown} are shown. Ask the tool for a smaller result if you need the rest.]`;
  const shown = Math.max(0, maxChars - note(maxChars).length);
  return `${text.slice(0, shown)}${note(shown)}`;
}
