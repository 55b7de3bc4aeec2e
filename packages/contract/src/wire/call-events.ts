// The typed event stream of one tool call, as the host emits it and the API streams it (server-
// sent events) to the web app, which may replay it later by call id. Every event carries the call
// id, a `seq` that grows by one per event of that call (gaps mean lost events) and an ISO timestamp.
// The host's sink that stamps them is packages/host/src/events/call-events.ts. The list of event
// types the web app listens to is call-event-types.ts (kept free of zod for the web bundle).
import { z } from 'zod';

/** A file that reached My Files, as the UI shows it (no blob keys, no host paths). */
export const StoredFileSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  mime: z.string(),
  size: z.number(),
  viewer: z.string(),
  category: z.string().optional(),
  description: z.string().optional(),
  /** Deferred artifact (v2.1 §7): kept for editing, expires. */
  deferred: z.boolean(),
  /** Session-only (display.storage_action = temporary). */
  temporary: z.boolean(),
});
export type StoredFileSummary = z.infer<typeof StoredFileSummarySchema>;

const HandedOverSummarySchema = z.object({
  argument: z.string(),
  /** Position in a `filenames`/`file_names`/multi-file argument. */
  index: z.number().optional(),
  fileId: z.string(),
  name: z.string(),
  mode: z.enum(['path', 'url', 'data-uri', 'base64']),
});

const EventBaseSchema = z.object({
  callId: z.string(),
  seq: z.number(),
  /** ISO 8601. */
  at: z.string(),
});

export const CallEventBodySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), server: z.string(), tool: z.string() }),
  z.object({
    type: z.literal('arguments_prepared'),
    /** The arguments as the model's transcript may show them: file names, never paths/URLs/base64. */
    transcript: z.record(z.string(), z.unknown()),
    handedOver: z.array(HandedOverSummarySchema),
    dropped: z.array(z.object({ argument: z.string(), reason: z.string() })),
  }),
  z.object({
    type: z.literal('progress'),
    progress: z.number(),
    total: z.number().optional(),
    percent: z.number().optional(),
    message: z.string().optional(),
  }),
  /** v2.1 §11.3 user notices; `timeout` is the 30 s text that comes with the E_TIMEOUT failure. */
  z.object({
    type: z.literal('notice'),
    kind: z.enum(['slow', 'timeout']),
    afterSeconds: z.number(),
    message: z.string(),
  }),
  z.object({ type: z.literal('file_stored'), file: StoredFileSummarySchema }),
  /**
   * The server asks the user (MCP elicitation): answer with host.answerElicitation /
   * POST /api/calls/:id/elicitations/:elicitationId. Form mode (`mode` absent in records older
   * than URL mode): a form from `requestedSchema`, whose `fileFields` (SEP-2356 x-mcp-file) are
   * answered with My Files ids. URL mode (SEP-1036): the user is asked to open `url` themselves
   * (never opened for them, never fetched by Ferry) and answers accept, decline or cancel without
   * content; `requestedSchema` is `{}` and `fileFields` empty.
   */
  z.object({
    type: z.literal('elicitation'),
    elicitationId: z.string(),
    mode: z.enum(['form', 'url']).optional(),
    /** The configured name of the server that asks (absent in older records). */
    server: z.string().optional(),
    message: z.string(),
    /** URL mode: the link as the server sent it, to show in full. */
    url: z.string().optional(),
    requestedSchema: z.record(z.string(), z.unknown()),
    fileFields: z.array(
      z.object({
        name: z.string(),
        required: z.boolean(),
        accept: z.array(z.string()).optional(),
        maxSize: z.number().optional(),
      }),
    ),
  }),
  /** The question was answered (by the user, or `cancel` at its timeout or the call's end). */
  z.object({
    type: z.literal('elicitation_answered'),
    elicitationId: z.string(),
    action: z.enum(['accept', 'decline', 'cancel']),
  }),
  /**
   * The tool called back into the user's file provider (client callback tools) during this call:
   * one event per callback, never its content. Attributed to the most recent running call of the
   * same user and server.
   */
  z.object({
    type: z.literal('file_provider'),
    /** read_file, list_directory, … (the spec's tool name, as the server called it). */
    tool: z.string(),
    /** The path the callback named, as the tool gave it (at most 512 characters). */
    path: z.string().optional(),
    ok: z.boolean(),
    /** FileNotFoundError, PermissionError, FileSizeLimitExceededError, FileProviderError. */
    errorType: z.string().optional(),
    /** Bytes of file content read. */
    bytes: z.number().optional(),
    /** Entries a listing returned. */
    count: z.number().optional(),
    durationMs: z.number(),
  }),
  z.object({
    type: z.literal('finished'),
    isError: z.boolean(),
    files: z.number(),
    /** The tool's `meta_data`, as the answer's forUi.metaData. */
    metaData: z.record(z.string(), z.unknown()).optional(),
    /** As the answer's forUi.retryable: set for an error, or when the tool said. */
    retryable: z.boolean().optional(),
  }),
  z.object({ type: z.literal('failed'), code: z.string(), message: z.string(), retryable: z.boolean() }),
  z.object({ type: z.literal('cancelled'), reason: z.string() }),
]);
export type CallEventBody = z.infer<typeof CallEventBodySchema>;
/** One file-provider callback, as a call's event body. */
export type FileProviderCallEvent = Extract<CallEventBody, { type: 'file_provider' }>;

export const CallEventSchema = z.intersection(EventBaseSchema, CallEventBodySchema);
export type CallEvent = z.infer<typeof CallEventSchema>;
export type CallEventType = CallEvent['type'];
