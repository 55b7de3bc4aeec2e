// Step 6: two answers from one call (DESIGN step 6). The model gets `results`, the names and
// short descriptions of stored files, the tool's `meta_data` while it is small and, on failure, a
// message with a suggestion and whether the call may be retried; never base64, host paths, tokens
// or URLs Ferry made. The UI gets the display hints, the canvas envelope, references to the stored
// files (ids, not bytes), all of `meta_data`, `retryable`, plus what was rejected and why.
import {
  type CallAnswer,
  chooseViewer,
  type DisplayHints,
  ERROR_CODES,
  type ErrorEnvelope,
  type HostRejectedOutput,
  isFerryErrorCode,
  MODEL_META_DATA_MAX_BYTES,
  type ModelAnswer,
  type ToolOutcome,
  type UiAnswer,
  type UiFile,
  type UnstoredOutput,
} from '@ferry/contract';
import { type CanvasPolicy, canvasForUi, NO_CANVAS_ORIGINS, withCanvasToken } from './canvas-policy.js';
import { NO_REDACTION, type Redaction, redactString, redactValue } from './redact-for-model.js';
import type { StoredOutput } from './store-outputs.js';

export interface AnswerInput {
  outcome: ToolOutcome;
  stored: StoredOutput[];
  rejected: HostRejectedOutput[];
  unstored: UnstoredOutput[];
  warnings: string[];
  redaction?: Redaction;
  /** Whose `canvas` envelope it is and where it may be framed from. @default nowhere: refused */
  canvas?: CanvasPolicy;
  /** Epoch milliseconds, for the canvas token's expiry. @default Date.now() */
  now?: number;
  /** The model's `results` when already made (store-large-result.ts); else the redacted result. */
  modelResults?: unknown;
}

const NO_DISPLAY: DisplayHints = { openCanvas: false, storageAction: 'store' };

export function answer(input: AnswerInput): CallAnswer {
  const { outcome } = input;
  const redaction = withCanvasToken(input.redaction ?? NO_REDACTION, outcome.canvas);
  const forModel: ModelAnswer = {
    results: 'modelResults' in input ? input.modelResults : redactValue(outcome.results, redaction),
    files: input.stored.map(({ record }) =>
      record.description ? { name: record.name, description: record.description } : { name: record.name },
    ),
    isError: outcome.isError,
  };
  if (outcome.metaData) Object.assign(forModel, metaDataForModel(outcome.metaData, redaction));
  if (outcome.error) {
    const suggestion = outcome.error.details.suggestion;
    forModel.error = {
      code: outcome.error.code,
      message: redactString(outcome.error.message, redaction),
      ...(typeof suggestion === 'string' ? { suggestion: redactString(suggestion, redaction) } : {}),
      retryable: outcome.error.retryable,
    };
  }
  const notStored = [
    ...input.rejected.map((r) => ({ name: r.name ?? `${r.origin}[${r.index ?? 0}]`, reason: summary(r) })),
    ...input.unstored.map((u) => ({ name: u.name, reason: 'not fetched' })),
  ];
  if (notStored.length > 0)
    forModel.notStored = notStored.map((n) => ({ ...n, name: redactString(n.name, redaction) }));

  const forUi: UiAnswer = {
    display: outcome.display,
    files: input.stored.map((stored) => uiFile(stored, outcome.display.primaryFile)),
    rejected: input.rejected,
    unstored: input.unstored,
    warnings: input.warnings,
  };
  if (outcome.metaData) forUi.metaData = outcome.metaData;
  // A failure's own flag (meta_data.retryable of its envelope, else the top-level one) wins.
  const retryable = outcome.error?.retryable ?? outcome.retryable;
  if (retryable !== undefined) forUi.retryable = retryable;
  if (outcome.canvas) {
    const framed = canvasForUi(outcome.canvas, input.canvas ?? NO_CANVAS_ORIGINS, input.now ?? Date.now());
    forUi.canvas = framed.canvas;
    forUi.warnings = [...forUi.warnings, ...framed.warnings];
  }
  return { forModel, forUi };
}

/**
 * The tool's meta_data as the model sees it: redacted like `results`, and whole only while its
 * JSON is at most MODEL_META_DATA_MAX_BYTES; past that a note naming the size and the cap.
 */
function metaDataForModel(
  metaData: Record<string, unknown>,
  redaction: Redaction,
): Pick<ModelAnswer, 'metaData' | 'metaDataNote'> {
  const redacted = redactValue(metaData, redaction) as Record<string, unknown>;
  const bytes = Buffer.byteLength(JSON.stringify(redacted));
  if (bytes <= MODEL_META_DATA_MAX_BYTES) return { metaData: redacted };
  return {
    metaDataNote: `meta_data omitted by Ferry: its JSON is ${bytes} bytes, over the ${MODEL_META_DATA_MAX_BYTES}-byte cap for the model (the user sees it in full)`,
  };
}

/** The answer of a call that failed as a whole (before, during or instead of the tool's result). */
export function answerFromError(
  error: ErrorEnvelope,
  extras: { warnings?: string[]; redaction?: Redaction } = {},
): CallAnswer {
  const redaction = extras.redaction ?? NO_REDACTION;
  const suggestion = error.meta_data.details.suggestion;
  return {
    forModel: {
      results: { error: redactString(error.results.error, redaction) },
      files: [],
      isError: true,
      error: {
        code: error.meta_data.error_code,
        message: redactString(error.results.error, redaction),
        ...(typeof suggestion === 'string' ? { suggestion: redactString(suggestion, redaction) } : {}),
        retryable: error.meta_data.retryable,
      },
    },
    forUi: {
      display: NO_DISPLAY,
      files: [],
      rejected: [],
      unstored: [],
      warnings: extras.warnings ?? [],
      retryable: error.meta_data.retryable,
      error,
    },
  };
}

function uiFile({ output, record }: StoredOutput, primaryFile: string | undefined): UiFile {
  const file: UiFile = {
    id: record.id,
    name: record.name,
    mime: record.mime,
    size: record.size,
    // The stored MIME type is sniffed from the bytes; it, not the tool's claim, picks the viewer.
    viewer: chooseViewer({ mime: record.mime, name: record.name }, output.viewer),
    autoOpen: output.autoOpen,
    deferred: record.source === 'deferred',
    // Session-only is the stored record's `persist`, as in the file list (see StoredOutput).
    temporary: !record.persist,
  };
  if (primaryFile !== undefined && output.name === primaryFile) file.primary = true;
  if (output.origin === 'result') file.fullResult = true;
  if (record.category) file.category = record.category;
  if (record.description) file.description = record.description;
  return file;
}

/** The code's short message: the detailed reason names paths, which the model must not see. */
function summary(rejected: HostRejectedOutput): string {
  const code = rejected.code;
  return rejected.error?.results.error ?? (isFerryErrorCode(code) ? ERROR_CODES[code].message : code);
}
