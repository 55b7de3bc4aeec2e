// The two answers of one tool call (the host's pipeline step 6, packages/host/src/pipeline/answer.ts)
// and the response that carries them through the API (POST /api/calls, GET /api/calls/:id) to the
// web app. The model gets `results`, the names and short descriptions of stored files and, on
// failure, a message with a suggestion; the UI gets the display hints, the canvas envelope and
// references to the stored files (ids, not bytes), plus what was rejected and why.

import type { CanvasEnvelope } from '../normalize/schemas.js';
import type { DisplayHints, OutputOrigin } from '../normalize/tool-outcome.js';
import type { StoredFileSummary } from './call-events.js';
import type { ErrorEnvelope, FerryErrorCode } from './errors.js';

/** The contract's origins plus files found in the workspace. */
export type HostOutputOrigin = OutputOrigin | 'workspace';

/** A file the tool meant to return that the host refused. */
export interface HostRejectedOutput {
  origin: HostOutputOrigin;
  /** Position within its list, when the result had one. */
  index?: number;
  name?: string;
  code: FerryErrorCode;
  reason: string;
  /** The spec envelope for path and size refusals (v2.1 §12.2, §12.3). */
  error?: ErrorEnvelope;
}

/** A file the tool named but the host did not fetch (e.g. a resource link it cannot read). */
export interface UnstoredOutput {
  name: string;
  origin: HostOutputOrigin;
  reason: string;
}

export interface ModelAnswer {
  results: unknown;
  files: { name: string; description?: string }[];
  isError: boolean;
  error?: { code: string; message: string; suggestion?: string };
  /** Files the tool meant to return that were not stored: name and a reason without paths. */
  notStored?: { name: string; reason: string }[];
}

/** A file the call stored in My Files, as the UI opens it once the call has answered. */
export interface UiFile extends StoredFileSummary {
  /** The file the display hints name as `primary_file`. */
  primary?: true;
  autoOpen: boolean;
}

export interface UiAnswer {
  display: DisplayHints;
  canvas?: CanvasEnvelope;
  files: UiFile[];
  rejected: HostRejectedOutput[];
  unstored: UnstoredOutput[];
  warnings: string[];
  /** The spec envelope when the call failed as a whole. */
  error?: ErrorEnvelope;
}

export interface CallAnswer {
  forModel: ModelAnswer;
  forUi: UiAnswer;
}

export interface ToolCallResponse extends CallAnswer {
  callId: string;
  status: 'finished' | 'failed' | 'cancelled';
  /** The arguments as the model's transcript may show them (absent when preparation failed). */
  transcript?: Record<string, unknown>;
}
