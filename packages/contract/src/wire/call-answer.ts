// The two answers of one tool call (the host's pipeline step 6, packages/host/src/pipeline/answer.ts)
// and the response that carries them through the API (POST /api/calls, GET /api/calls/:id) to the
// web app. The model gets `results`, the names and short descriptions of stored files and, on
// failure, a message with a suggestion; the UI gets the display hints, the canvas envelope and
// references to the stored files (ids, not bytes), plus what was rejected and why. Fields not
// listed here are stripped on the way out, so nothing the host adds later leaks by accident.
import { z } from 'zod';
import { CanvasEnvelopeSchema, DISPLAY_MODES, STORAGE_ACTIONS } from '../normalize/schemas.js';
import { StoredFileSummarySchema } from './call-events.js';
import { ErrorEnvelopeSchema, FerryErrorCodeSchema } from './error-envelope.js';

/** What the UI should do with the result: the v2 display + v2.1 storage hints, read by the normalizer. */
export const DisplayHintsSchema = z.object({
  openCanvas: z.boolean(),
  /** Normalized name of a file in `files`/`deferred`; dropped when it names none. */
  primaryFile: z.string().optional(),
  mode: z.enum(DISPLAY_MODES).optional(),
  viewerHint: z.string().optional(),
  storageAction: z.enum(STORAGE_ACTIONS),
  categoryHint: z.string().optional(),
  notification: z.string().optional(),
});
export type DisplayHints = z.infer<typeof DisplayHintsSchema>;

/**
 * Where in a tool's result a file came from (the normalizer's OutputOrigin), plus the host's own:
 * `workspace`, files the host found in the tool's workspace, and `result`, the result itself,
 * stored because it was too large for the model.
 */
const HostOutputOriginSchema = z.enum([
  'artifact',
  'deferred_artifact',
  'legacy_array',
  'returned_file',
  'mcp_image',
  'mcp_audio',
  'mcp_resource',
  'mcp_resource_link',
  'workspace',
  'result',
]);
export type HostOutputOrigin = z.infer<typeof HostOutputOriginSchema>;

/** A file the tool meant to return that the host refused. */
const HostRejectedOutputSchema = z.object({
  origin: HostOutputOriginSchema,
  /** Position within its list, when the result had one. */
  index: z.number().optional(),
  name: z.string().optional(),
  code: FerryErrorCodeSchema,
  reason: z.string(),
  /** The spec envelope for path and size refusals (v2.1 §12.2, §12.3). */
  error: ErrorEnvelopeSchema.optional(),
});
export type HostRejectedOutput = z.infer<typeof HostRejectedOutputSchema>;

/** A file the tool named but the host did not fetch (e.g. a resource link it cannot read). */
const UnstoredOutputSchema = z.object({
  name: z.string(),
  origin: HostOutputOriginSchema,
  reason: z.string(),
});
export type UnstoredOutput = z.infer<typeof UnstoredOutputSchema>;

/**
 * The most of a tool's `meta_data` the model is shown: 2 KiB of JSON (UTF-8 bytes). v2.1 §1.1 calls
 * meta_data "small, structured facts"; past this it is no longer small, and the model reads a note
 * naming the cap instead (the UI and the API still get all of it).
 */
export const MODEL_META_DATA_MAX_BYTES = 2048;

const ModelAnswerSchema = z.object({
  results: z.unknown(),
  files: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  isError: z.boolean(),
  /** The tool's `meta_data` when its JSON is at most MODEL_META_DATA_MAX_BYTES, else absent. */
  metaData: z.record(z.string(), z.unknown()).optional(),
  /** Instead of `metaData` when that is over the cap: says how big it was and what the cap is. */
  metaDataNote: z.string().optional(),
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      suggestion: z.string().optional(),
      /** v2.1 §12: the same call may safely be run again (a timeout, a server that was down). */
      retryable: z.boolean(),
    })
    .optional(),
  /** Files the tool meant to return that were not stored: name and a reason without paths. */
  notStored: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
});
export type ModelAnswer = z.infer<typeof ModelAnswerSchema>;

const stored = StoredFileSummarySchema.shape;
/** A file the call stored in My Files, as the UI opens it once the call has answered. */
export const UiFileSchema = z.object({
  id: stored.id,
  name: stored.name,
  mime: stored.mime,
  size: stored.size,
  viewer: stored.viewer,
  /** The file the display hints name as `primary_file`. */
  primary: z.literal(true).optional(),
  /** The tool's whole result, stored because it was too large for the model (which got a preview). */
  fullResult: z.literal(true).optional(),
  autoOpen: z.boolean(),
  category: stored.category,
  description: stored.description,
  deferred: stored.deferred,
  temporary: stored.temporary,
});
export type UiFile = z.infer<typeof UiFileSchema>;

const envelope = CanvasEnvelopeSchema.shape;
/**
 * The tool's canvas envelope (CanvasEnvelopeSchema's fields, nothing else a tool adds to it) and
 * the host's decision on framing it (docs/canvas.md): `allowed` only when the URL's origin is one
 * the server's `canvasOrigins` allow. A refused canvas keeps its URL for the message, never its token.
 */
const UiCanvasSchema = z.object({
  id: envelope.id,
  url: envelope.url,
  type: envelope.type,
  open: envelope.open,
  persistence: envelope.persistence,
  token: envelope.token.describe(
    'Capability token for the frame alone, posted to it once it loads (docs/canvas.md); only when allowed and not expired',
  ),
  tokenExpiresAt: z.string().optional().describe("The envelope's token_expires_at, ISO 8601"),
  title: envelope.title,
  mode: envelope.mode,
  server: z.string().describe('The server whose tool returned the envelope'),
  origin: z.string().describe("The URL's origin, scheme://host[:port]"),
  allowed: z.boolean().describe('Whether the origin is allowed for the server: the UI frames nothing else'),
  refusal: z.string().optional().describe('Why it is not framed: "origin … is not allowed for server …"'),
});
export type UiCanvas = z.infer<typeof UiCanvasSchema>;

const UiAnswerSchema = z.object({
  display: DisplayHintsSchema,
  canvas: UiCanvasSchema.optional().describe('v2 iframe canvas envelope and whether it may be framed'),
  files: z.array(UiFileSchema),
  rejected: z.array(HostRejectedOutputSchema),
  unstored: z.array(UnstoredOutputSchema),
  warnings: z.array(z.string()),
  /** The tool's `meta_data` (v2.1 §1.1: small structured facts), whole. */
  metaData: z.record(z.string(), z.unknown()).optional(),
  /**
   * Whether the same call may safely be run again: for a failure, its error's `retryable` (v2.1
   * §12); for a success, the tool's top-level `retryable` when it gave one.
   */
  retryable: z.boolean().optional(),
  /** The spec envelope when the call failed as a whole. */
  error: ErrorEnvelopeSchema.optional(),
});
export type UiAnswer = z.infer<typeof UiAnswerSchema>;

const CallAnswerSchema = z.object({ forModel: ModelAnswerSchema, forUi: UiAnswerSchema });
export type CallAnswer = z.infer<typeof CallAnswerSchema>;

export const ToolCallResponseSchema = z
  .object({
    callId: z.string(),
    status: z.enum(['finished', 'failed', 'cancelled']),
    /** The arguments as the model's transcript may show them (absent when preparation failed). */
    transcript: z.record(z.string(), z.unknown()).optional(),
    ...CallAnswerSchema.shape,
    /**
     * MCP Apps (SEP-1865): the MCP CallToolResult as the server sent it (content,
     * structuredContent, _meta, isError), what a tool's view gets in `ui/notifications/tool-result`.
     * Only for a finished call of a tool that declares `_meta.ui` or whose server has a view, and
     * only when its JSON is at most MCP_RESULT_MAX_BYTES; above that it is left out and
     * `mcpResultOmitted` is true.
     */
    mcpResult: z.record(z.string(), z.unknown()).optional(),
    mcpResultOmitted: z.literal(true).optional(),
  })
  .meta({ id: 'ToolCallResponse' });

/** The largest `mcpResult` a call response carries: 8 MiB of JSON (UTF-8 bytes). */
export const MCP_RESULT_MAX_BYTES = 8 * 1024 * 1024;
export type ToolCallResponse = z.infer<typeof ToolCallResponseSchema>;
