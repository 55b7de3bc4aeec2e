// A file in My Files as the API shows it. The catalog keeps more (packages/storage FileRecord:
// owner, blob key, session, Dates); toFileDto (apps/ferry/src/files/file-dto.ts) builds only these
// fields, and the response schema strips anything else.
import { z } from 'zod';

export const FileSourceSchema = z.enum(['uploaded', 'generated', 'deferred']);
export type FileSource = z.infer<typeof FileSourceSchema>;

/** Cheap facts about the content for the prompt file block; every field optional. */
export const FileInfoSchema = z.object({
  rows: z.number().optional(),
  columns: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  pages: z.number().optional(),
  /** A deferred artifact's v2.1 §7 `reason` (e.g. `needs_editing`). */
  deferredReason: z.string().optional().describe("A deferred artifact's reason (v2.1 §7)"),
  /** A deferred artifact's `next_actions`: what the user may do with it next. */
  nextActions: z.array(z.string()).optional().describe("A deferred artifact's next_actions"),
});
export type FileInfo = z.infer<typeof FileInfoSchema>;

/**
 * A file as the API shows it: no owner id, blob key or session key.
 * Wire form, deliberately not FileRecord: ISO 8601 strings for its Dates, `temporary` for `!persist`.
 */
export const FileDtoSchema = z
  .object({
    id: z.uuid(),
    /** Normalized logical name; unique per owner together with `version`. */
    name: z.string(),
    /** 1 for the first version of a name, then 2, 3, … without gaps (deletes may leave holes). */
    version: z.number().int(),
    size: z.number().int(),
    mime: z.string(),
    sha256: z.string(),
    source: FileSourceSchema,
    category: z.string().nullable(),
    description: z.string().nullable(),
    /** Session-only: deleted when the session it was stored in ends. */
    temporary: z.boolean(),
    expiresAt: z.string().nullable().describe('ISO 8601; null = does not expire'),
    createdAt: z.string().describe('ISO 8601'),
    info: FileInfoSchema.nullable(),
    /**
     * Upload answers only: true when these bytes already were the latest version of the name, which
     * is what is returned; nothing new was stored.
     */
    unchanged: z
      .boolean()
      .optional()
      .describe(
        'Upload answers only: true when these bytes already were the latest version of the name, which is returned; nothing new was stored',
      ),
  })
  .meta({ id: 'File' });

export type FileDto = z.infer<typeof FileDtoSchema>;
