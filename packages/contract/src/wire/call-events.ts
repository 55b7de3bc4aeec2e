// The typed event stream of one tool call, as the host emits it and the API streams it (server-
// sent events) to the web app, which may replay it later by call id. Every event carries the call
// id, a `seq` that grows by one per event of that call (gaps mean lost events) and an ISO timestamp.
// The host's sink that stamps them is packages/host/src/events/call-events.ts.

/** A file that reached My Files, as the UI shows it (no blob keys, no host paths). */
export interface StoredFileSummary {
  id: string;
  name: string;
  mime: string;
  size: number;
  viewer: string;
  category?: string;
  description?: string;
  /** Deferred artifact (v2.1 §7): kept for editing, expires. */
  deferred: boolean;
  /** Session-only (display.storage_action = temporary). */
  temporary: boolean;
}

export interface HandedOverSummary {
  argument: string;
  /** Position in a `filenames`/`file_names`/multi-file argument. */
  index?: number;
  fileId: string;
  name: string;
  mode: 'path' | 'url' | 'data-uri' | 'base64';
}

interface EventBase {
  callId: string;
  seq: number;
  /** ISO 8601. */
  at: string;
}

export type CallEventBody =
  | { type: 'started'; server: string; tool: string }
  | {
      type: 'arguments_prepared';
      /** The arguments as the model's transcript may show them: file names, never paths/URLs/base64. */
      transcript: Record<string, unknown>;
      handedOver: HandedOverSummary[];
      dropped: { argument: string; reason: string }[];
    }
  | { type: 'progress'; progress: number; total?: number; percent?: number; message?: string }
  /** v2.1 §11.3 user notices; `timeout` is the 30 s text that comes with the E_TIMEOUT failure. */
  | { type: 'notice'; kind: 'slow' | 'timeout'; afterSeconds: number; message: string }
  | { type: 'file_stored'; file: StoredFileSummary }
  /**
   * The server asks the user (MCP elicitation, form mode): answer with host.answerElicitation /
   * POST /api/calls/:id/elicitations/:elicitationId. `fileFields` are SEP-2356 x-mcp-file fields,
   * answered with My Files ids.
   */
  | {
      type: 'elicitation';
      elicitationId: string;
      message: string;
      requestedSchema: Record<string, unknown>;
      fileFields: { name: string; required: boolean; accept?: string[]; maxSize?: number }[];
    }
  /** The question was answered (by the user, or `cancel` at its timeout or the call's end). */
  | { type: 'elicitation_answered'; elicitationId: string; action: 'accept' | 'decline' | 'cancel' }
  | { type: 'finished'; isError: boolean; files: number }
  | { type: 'failed'; code: string; message: string; retryable: boolean }
  | { type: 'cancelled'; reason: string };

export type CallEvent = EventBase & CallEventBody;
export type CallEventType = CallEvent['type'];

/**
 * Every event type, in the order a call may emit them. Each is its own SSE `event:` name, so a
 * client listens to each (test/call-events.test.ts checks that the list is complete).
 */
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
] as const satisfies readonly CallEventType[];

/** The events that end a call: nothing follows them. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  'finished',
  'failed',
  'cancelled',
] satisfies CallEventType[]);
