// Step 6: two answers from one call (DESIGN step 6). The model gets `results`, the names and
// short descriptions of stored files and, on failure, a message with a suggestion; never base64,
// host paths, tokens or URLs Ferry made. The UI gets the display hints, the canvas envelope and
// references to the stored files (ids, not bytes), plus what was rejected and why.
import {
  type CallAnswer,
  chooseViewer,
  type DisplayHints,
  ERROR_CODES,
  type ErrorEnvelope,
  type HostRejectedOutput,
  isFerryErrorCode,
  type ModelAnswer,
  type ToolOutcome,
  type UiAnswer,
  type UiFile,
  type UnstoredOutput,
} from '@ferry/contract';
import { NO_REDACTION, type Redaction, redactString, redactValue } from './redact-for-model.js';
import type { StoredOutput } from './store-outputs.js';

export interface AnswerInput {
  outcome: ToolOutcome;
  stored: StoredOutput[];
  rejected: HostRejectedOutput[];
  unstored: UnstoredOutput[];
  warnings: string[];
  redaction?: Redaction;
}

const NO_DISPLAY: DisplayHints = { openCanvas: false, storageAction: 'store' };

export function answer(input: AnswerInput): CallAnswer {
  const { outcome } = input;
  const redaction = input.redaction ?? NO_REDACTION;
  const forModel: ModelAnswer = {
    results: redactValue(outcome.results, redaction),
    files: input.stored.map(({ record }) =>
      record.description ? { name: record.name, description: record.description } : { name: record.name },
    ),
    isError: outcome.isError,
  };
  if (outcome.error) {
    const suggestion = outcome.error.details.suggestion;
    forModel.error = {
      code: outcome.error.code,
      message: redactString(outcome.error.message, redaction),
      ...(typeof suggestion === 'string' ? { suggestion: redactString(suggestion, redaction) } : {}),
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
  if (outcome.canvas) forUi.canvas = outcome.canvas;
  return { forModel, forUi };
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
      },
    },
    forUi: {
      display: NO_DISPLAY,
      files: [],
      rejected: [],
      unstored: [],
      warnings: extras.warnings ?? [],
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
  if (record.category) file.category = record.category;
  if (record.description) file.description = record.description;
  return file;
}

/** The code's short message: the detailed reason names paths, which the model must not see. */
function summary(rejected: HostRejectedOutput): string {
  const code = rejected.code;
  return rejected.error?.results.error ?? (isFerryErrorCode(code) ? ERROR_CODES[code].message : code);
}
