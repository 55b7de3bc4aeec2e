// The one internal shape every tool result becomes, whatever convention the tool followed.

import type { Viewer } from '../codecs/mime.js';
import type { DisplayHints, HostOutputOrigin } from '../wire/call-answer.js';
import type { FerryErrorCode } from '../wire/errors.js';
import type { CanvasEnvelope } from './schemas.js';

/** The display hints are sent to the UI as they are (wire/call-answer.ts defines them). */
export type { DisplayHints };

/** Which convention the result followed (the richest one seen). */
export type OutcomeForm =
  | 'v2.1'
  | 'v2'
  | 'legacy-arrays'
  | 'file-injection'
  | 'json'
  | 'mcp-content'
  | 'text'
  | 'empty';

/** Where in the result a file came from (the wire's list, wire/call-answer.ts, less the host's own). */
export type OutputOrigin = Exclude<HostOutputOrigin, 'workspace' | 'result'>;

/** How the bytes of a file arrive; the host turns each into a stream for storage. */
export type FileSourceForm =
  | { kind: 'base64'; base64: string; byteLength: number }
  | { kind: 'text'; text: string; byteLength: number }
  /** A path the tool wrote, to be read by the host through the sandbox's safe path resolution. */
  | { kind: 'path'; path: string }
  /** An MCP resource link; the host may fetch it with `resources/read`. */
  | { kind: 'resource_link'; uri: string };

export interface DeferredInfo {
  reason?: string;
  nextActions: string[];
  expiresHours: number;
}

export interface FileOutput {
  /** Normalized, unique within the outcome. */
  name: string;
  /** As the tool gave it (or as Ferry generated it for unnamed MCP content). */
  originalName: string;
  mime: string;
  /** Bytes: exact for base64/text; as declared by the tool for path/resource_link (unverified). */
  size?: number;
  description?: string;
  viewer: Viewer;
  category?: string;
  autoOpen: boolean;
  origin: OutputOrigin;
  source: FileSourceForm;
  deferred?: DeferredInfo;
}

export interface RejectedOutput {
  origin: OutputOrigin;
  /** Position within its list (artifacts[i], content[i], …). */
  index: number;
  name?: string;
  code: Extract<FerryErrorCode, 'E_INVALID_INPUT' | 'E_INVALID_PATH' | 'E_FILE_TOO_LARGE'>;
  reason: string;
}

export interface OutcomeError {
  /** A Ferry code, or the tool's own `error_code` when it has one. */
  code: string;
  reason?: string;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
}

export interface ToolOutcome {
  form: OutcomeForm;
  isError: boolean;
  /** What the model gets (never base64: file contents live in `files`). */
  results: unknown;
  /** Plain text blocks that were not the result payload itself. */
  text: string[];
  metaData?: Record<string, unknown>;
  retryable?: boolean;
  files: FileOutput[];
  deferred: FileOutput[];
  rejected: RejectedOutput[];
  display: DisplayHints;
  canvas?: CanvasEnvelope;
  error?: OutcomeError;
  /** Things that were odd but did not lose data (ignored legacy arrays, bad hints…). */
  warnings: string[];
}

export type NormalizeResult = { ok: true; outcome: ToolOutcome } | { ok: false; error: string };
