// The typed event stream of one tool call. The API and the web app subscribe to it (server-sent
// events) and may replay it later by call id, so every event carries the call id, a `seq` that
// grows by one per event of that call (gaps mean lost events) and an ISO timestamp.

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

export interface CallEventSink {
  readonly callId: string;
  /** Stamps `callId`, `seq` and `at`, hands the event to the subscriber and returns it. */
  emit(body: CallEventBody): CallEvent;
}

export interface CallEventSinkOptions {
  callId: string;
  emit: (event: CallEvent) => void;
  /** Epoch milliseconds. @default Date.now */
  now?: () => number;
}

/**
 * One sink per call. A subscriber that throws must not break the call it watches, so its errors
 * are swallowed here (the subscriber owns its own logging).
 */
export function createCallEventSink(options: CallEventSinkOptions): CallEventSink {
  const now = options.now ?? Date.now;
  let seq = 0;
  return {
    callId: options.callId,
    emit(body) {
      seq += 1;
      const event = { ...body, callId: options.callId, seq, at: new Date(now()).toISOString() } as CallEvent;
      try {
        options.emit(event);
      } catch {
        // see above
      }
      return event;
    },
  };
}
