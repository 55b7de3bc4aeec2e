// Wire shapes of the tool output contracts, as tools send them (snake_case). Objects are loose:
// unknown keys are kept, because tools add their own fields and the specs evolve; the normalizer
// decides what each field means. Each field is checked on its own so that one bad artifact is
// rejected with a reason while the rest of the result is still used.
import { z } from 'zod';

/** Artifact of v2 (`b64`) and v2.1 (`b64` or `path`, plus category/auto_open). */
export const ArtifactSchema = z.looseObject({
  name: z.string().min(1),
  b64: z.string().optional(),
  path: z.string().optional(),
  mime: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  description: z.string().optional(),
  viewer: z.string().optional(),
  category: z.string().optional(),
  auto_open: z.boolean().optional(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const DEFAULT_DEFERRED_EXPIRES_HOURS = 72;

/** v2.1 §7.1. `path` is required by the spec; Ferry also accepts `b64` (same processing, §7.2). */
export const DeferredArtifactSchema = z.looseObject({
  name: z.string().min(1),
  path: z.string().optional(),
  b64: z.string().optional(),
  mime: z.string().optional(),
  description: z.string().optional(),
  /** The spec names needs_editing, draft, incomplete and awaiting_approval; any text is kept. */
  reason: z.string().optional(),
  next_actions: z.array(z.string()).optional(),
  category: z.string().optional(),
  expires_hours: z.number().positive().optional(),
});
export type DeferredArtifact = z.infer<typeof DeferredArtifactSchema>;

export const DISPLAY_MODES = ['replace', 'append', 'split'] as const;
export const STORAGE_ACTIONS = ['store', 'store_and_open', 'temporary'] as const;

/** v2 §1 display + v2.1 §8.1 storage-aware fields. Each field is validated separately. */
export const DisplayFieldSchemas = {
  open_canvas: z.boolean(),
  primary_file: z.string().min(1),
  mode: z.enum(DISPLAY_MODES),
  viewer_hint: z.string(),
  storage_action: z.enum(STORAGE_ACTIONS),
  category_hint: z.string(),
  notification: z.string(),
} as const;
export const DisplaySchema = z.looseObject({
  open_canvas: DisplayFieldSchemas.open_canvas.optional(),
  primary_file: DisplayFieldSchemas.primary_file.optional(),
  mode: DisplayFieldSchemas.mode.optional(),
  viewer_hint: DisplayFieldSchemas.viewer_hint.optional(),
  storage_action: DisplayFieldSchemas.storage_action.optional(),
  category_hint: DisplayFieldSchemas.category_hint.optional(),
  notification: DisplayFieldSchemas.notification.optional(),
});
export type Display = z.infer<typeof DisplaySchema>;

/**
 * v2 §3 iframe dashboard envelope. The URL must be http(s): a `javascript:` or `data:` URL in an
 * iframe would run with whatever the sandbox allows.
 */
export const CanvasEnvelopeSchema = z.looseObject({
  open: z.boolean().default(true),
  id: z.string().min(1).max(200),
  persistence: z.enum(['session', 'ephemeral', 'pinned']).default('session'),
  type: z.literal('iframe').default('iframe'),
  url: z.url({ protocol: /^https?$/ }),
  token: z.string().optional(),
  title: z.string().optional(),
  mode: z.enum(DISPLAY_MODES).optional(),
});
export type CanvasEnvelope = z.infer<typeof CanvasEnvelopeSchema>;

/**
 * A complete v2.1 tool output (§1.1), for tool authors (server-kit) who want to check what they
 * return. The normalizer does not use it: it accepts far more than this.
 */
export const ToolOutputV21Schema = z.looseObject({
  results: z.unknown().refine((value) => value !== undefined, 'results is required'),
  meta_data: z.record(z.string(), z.unknown()).optional(),
  retryable: z.boolean().optional(),
  artifacts: z.array(ArtifactSchema).optional(),
  display: DisplaySchema.optional(),
  deferred_artifacts: z.array(DeferredArtifactSchema).optional(),
  canvas: CanvasEnvelopeSchema.optional(),
});

/** Formats zod issues as `path: message; …` for rejection reasons and API errors. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
