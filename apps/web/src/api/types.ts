// Shapes of the Ferry HTTP API as the web app reads them (apps/ferry/src/routes/*.ts and the
// OpenAPI document). Only the fields the UI uses are listed; extra fields are ignored.

export type FileSource = 'uploaded' | 'generated' | 'deferred';

export interface FileDto {
  id: string;
  name: string;
  version: number;
  size: number;
  mime: string;
  sha256: string;
  source: FileSource;
  category: string | null;
  description: string | null;
  /** Session-only: deleted when the session it was stored in ends. */
  temporary: boolean;
  expiresAt: string | null;
  createdAt: string;
  info: {
    rows?: number;
    columns?: number;
    width?: number;
    height?: number;
    pages?: number;
    deferredReason?: string;
    nextActions?: string[];
  } | null;
}

export interface MeDto {
  username: string;
  authMode: 'local' | 'proxy';
  session: string | null;
  usage: { bytes: number; count: number; quotaBytes: number | null };
  limits: { maxFileSizeBytes: number; base64SizeLimitBytes: number; persistFilesAcrossSessions: boolean };
  /** Not exposed by the API yet; read when a later version adds it. */
  sandbox?: string;
}

/** GET /api/status: the effective modes and the warnings to show. */
export interface StatusDto {
  username: string;
  version: string;
  storage: string;
  catalog: string;
  auth: string;
  llm: string;
  sandbox: {
    mode: 'required' | 'auto' | 'off';
    effectiveMode: 'sandboxed' | 'unsandboxed' | 'refused';
    available: boolean;
    reason?: string;
    warning?: string;
    summary: string;
  };
  warnings: string[];
}

export interface ServerDto {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  enabled: boolean;
  fileMode: 'path' | 'url' | 'data-uri';
  timeouts: { noticeSeconds: number[]; timeoutSeconds: number; hardCapSeconds: number };
  /** Not exposed by the API yet. */
  sandbox?: string;
}

export type InjectedInput = 'host' | 'file-name' | 'file-names' | 'file-picker';

export interface ToolDto {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  injected: { name: string; kind: string; input: InjectedInput; hiddenFromModel: boolean }[];
  fileInputs: { name: string; multiple: boolean; required: boolean; accept?: string[]; maxSize?: number }[];
}

export interface UiFile {
  id: string;
  name: string;
  mime: string;
  size: number;
  viewer: string;
  primary?: true;
  autoOpen: boolean;
  category?: string;
  description?: string;
  deferred: boolean;
  temporary: boolean;
}

export interface ErrorEnvelope {
  results: { error?: string } & Record<string, unknown>;
  meta_data: {
    is_error: true;
    reason?: string;
    error_code: string;
    details?: Record<string, unknown>;
    retryable?: boolean;
  };
}

export interface CanvasEnvelopeDto {
  id: string;
  url: string;
  type: string;
  open: boolean;
  title?: string;
  mode?: string;
}

export interface ToolCallResponse {
  callId: string;
  status: 'finished' | 'failed' | 'cancelled';
  transcript?: Record<string, unknown>;
  forModel: {
    results: unknown;
    files: { name: string; description?: string }[];
    isError: boolean;
    error?: { code: string; message: string; suggestion?: string };
    notStored?: { name: string; reason: string }[];
  };
  forUi: {
    display: {
      openCanvas: boolean;
      primaryFile?: string;
      mode?: string;
      viewerHint?: string;
      storageAction: string;
      categoryHint?: string;
      notification?: string;
    };
    canvas?: CanvasEnvelopeDto;
    files: UiFile[];
    rejected: { origin: string; name?: string; code: string; reason: string }[];
    unstored: { name: string; origin: string; reason: string }[];
    warnings: string[];
    error?: ErrorEnvelope;
  };
}

export type CallStatus = 'running' | 'finished' | 'failed' | 'cancelled';

export interface CallDetail {
  callId: string;
  server: string;
  tool: string;
  status: CallStatus;
  startedAt: string;
  finishedAt: string | null;
  lastSeq: number;
  response: ToolCallResponse | null;
}

export interface StoredFileSummary {
  id: string;
  name: string;
  mime: string;
  size: number;
  viewer: string;
  category?: string;
  description?: string;
  deferred: boolean;
  temporary: boolean;
}

interface EventBase {
  callId: string;
  seq: number;
  at: string;
}

export type CallEvent = EventBase &
  (
    | { type: 'started'; server: string; tool: string }
    | { type: 'arguments_prepared'; transcript: Record<string, unknown> }
    | { type: 'progress'; progress: number; total?: number; percent?: number; message?: string }
    | { type: 'notice'; kind: 'slow' | 'timeout'; afterSeconds: number; message: string }
    | { type: 'file_stored'; file: StoredFileSummary }
    | {
        type: 'elicitation';
        elicitationId?: string;
        /** The placeholder event of the first host version named it requestId. */
        requestId?: string;
        message: string;
        requestedSchema?: Record<string, unknown>;
        /** SEP-2356 x-mcp-file fields of requestedSchema, answered with My Files ids. */
        fileFields?: { name: string; required: boolean; accept?: string[]; maxSize?: number }[];
      }
    | { type: 'elicitation_answered'; elicitationId: string; action: 'accept' | 'decline' | 'cancel' }
    | { type: 'finished'; isError: boolean; files: number }
    | { type: 'failed'; code: string; message: string; retryable: boolean }
    | { type: 'cancelled'; reason: string }
  );

export const CALL_EVENT_TYPES = [
  'started',
  'arguments_prepared',
  'progress',
  'notice',
  'file_stored',
  'elicitation',
  'elicitation_answered',
  'finished',
  'failed',
  'cancelled',
] as const;

export const TERMINAL_EVENTS = new Set(['finished', 'failed', 'cancelled']);

/** GET /api/events: My Files changed (upload, rename, delete, a file stored by a tool). */
export interface FilesChangedEvent {
  type: 'files_changed';
  reason: string;
  fileIds?: string[];
  /** An earlier draft of the stream named one file. */
  fileId?: string;
}

/** GET /api/events wraps each call event: `event: call`, data `{ type: 'call', event }`. */
export interface UserCallEvent {
  type: 'call';
  event: CallEvent;
}
