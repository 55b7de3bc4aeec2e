// A settled call's outcome in the form a client of tool contract v2.1 expects (§1.1 fields, §6.2
// "client processed" artifacts): GET /api/calls/:id?form=v2.1 (apps/ferry/src/calls/v21-form.ts
// streams it). Ferry keeps every file in My Files and answers with ids; this form puts a file's
// bytes inline as `b64` when it is at most base64_size_limit_mb and a reference (`s3_ref`) above
// it, as §6.2 says. The schema documents the answer (OpenAPI) and lets tests and clients check it;
// the route never builds the answer as one object, it writes it piece by piece.
import { z } from 'zod';
import { CanvasEnvelopeSchema, DisplaySchema } from '../normalize/schemas.js';
import { IdSchema } from './common.js';

/** The value of `?form=` that asks for this form. */
export const CALL_FORMS = ['v2.1'] as const;
export type CallForm = (typeof CALL_FORMS)[number];

/**
 * §6.2's "internal S3 reference", named as the spec names it so that clients looking for it find
 * it. It never holds a bucket or blob key (those stay inside Ferry, whatever the storage): the
 * file's id and version in My Files and the API path that downloads its bytes with the same
 * credentials as this request.
 */
const V21StorageRefSchema = z.object({
  file_id: IdSchema,
  version: z.number().int(),
  url: z.string().describe('/api/files/{id}/content: GET it as the same user (Range works)'),
  internal: z.literal(true),
});

/** One stored file: §6.1's fields, then exactly one of `b64`, `s3_ref` or `unavailable`. */
const V21OutputFileSchema = z.object({
  name: z.string(),
  mime: z.string(),
  size: z.number().int().describe('Bytes, as stored'),
  description: z.string().optional(),
  category: z.string().optional(),
  auto_open: z.boolean(),
  viewer: z.string(),
  /** Deferred artifacts only (§7.1). */
  reason: z.string().optional(),
  next_actions: z.array(z.string()).optional(),
  expires_at: z.string().nullable().optional().describe('Deferred artifacts: ISO 8601, null = never'),
  b64: z.string().optional().describe('The bytes, base64, when size <= base64_size_limit_mb'),
  s3_ref: V21StorageRefSchema.optional().describe('When size > base64_size_limit_mb'),
  unavailable: z.string().optional().describe('Why neither: the file was deleted since the call'),
});
export type V21OutputFile = z.infer<typeof V21OutputFileSchema>;

export const CallV21FormSchema = z
  .object({
    results: z.unknown(),
    /** The tool's meta_data; for a failure the §12 error facts (is_error, error_code, …). */
    meta_data: z.record(z.string(), z.unknown()).optional(),
    retryable: z.boolean().optional(),
    artifacts: z.array(V21OutputFileSchema),
    deferred_artifacts: z.array(V21OutputFileSchema),
    display: DisplaySchema,
    canvas: CanvasEnvelopeSchema.optional(),
  })
  .meta({ id: 'CallV21Form', description: 'Tool contract v2.1 output, artifacts processed as in §6.2' });
export type CallV21Form = z.infer<typeof CallV21FormSchema>;
