// A file as the API shows it: no owner id, blob key or session key (the response schema strips
// anything not listed here, and toFileDto builds only these fields).
import type { FileRecord } from '@ferry/storage';
import { z } from 'zod';

export const FileDtoSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    version: z.number().int(),
    size: z.number().int(),
    mime: z.string(),
    sha256: z.string(),
    source: z.enum(['uploaded', 'generated', 'deferred']),
    category: z.string().nullable(),
    description: z.string().nullable(),
    /** Session-only: deleted when the session it was stored in ends. */
    temporary: z.boolean(),
    expiresAt: z.string().nullable().describe('ISO 8601; null = does not expire'),
    createdAt: z.string().describe('ISO 8601'),
    info: z
      .object({
        rows: z.number().optional(),
        columns: z.number().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        pages: z.number().optional(),
        deferredReason: z.string().optional().describe("A deferred artifact's reason (v2.1 §7)"),
        nextActions: z.array(z.string()).optional().describe("A deferred artifact's next_actions"),
      })
      .nullable(),
    unchanged: z
      .boolean()
      .optional()
      .describe(
        'Upload answers only: true when these bytes already were the latest version of the name, which is returned; nothing new was stored',
      ),
  })
  .meta({ id: 'File' });

export type FileDto = z.infer<typeof FileDtoSchema>;

/** `unchanged` comes from FileStore.put (PutResult) and is shown only when true. */
export function toFileDto(record: FileRecord & { unchanged?: boolean }): FileDto {
  return {
    id: record.id,
    name: record.name,
    version: record.version,
    size: record.size,
    mime: record.mime,
    sha256: record.sha256,
    source: record.source,
    category: record.category,
    description: record.description,
    temporary: !record.persist,
    expiresAt: record.expiresAt ? record.expiresAt.toISOString() : null,
    createdAt: record.createdAt.toISOString(),
    info: record.info ? { ...record.info } : null,
    ...(record.unchanged ? { unchanged: true } : {}),
  };
}
