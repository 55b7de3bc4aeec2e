// What the files API (apps/ferry/src/routes/files.ts, file-upload.ts, file-content.ts) accepts and
// answers, besides the FileDto itself.
import { z } from 'zod';
import { pageSchema, pagingFields, QueryBoolean } from './common.js';
import { FileDtoSchema, FileSourceSchema } from './file-dto.js';

/** GET /api/files. */
export const FileListQuerySchema = z.object({
  q: z.string().max(255).optional().describe('Case-insensitive substring of the name'),
  source: FileSourceSchema.optional(),
  sort: z.enum(['name', 'created', 'size']).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
  ...pagingFields(100, 1000),
  allVersions: QueryBoolean.optional().describe('Every version instead of the latest of each name'),
  session: z.literal('current').optional().describe('Only files stored in the X-Ferry-Session session'),
});

/**
 * GET /api/files/:id/versions. Strict, unlike the older list query above: an unknown parameter is
 * a 400, not an unpaged answer.
 */
export const FileVersionsQuerySchema = z.strictObject(pagingFields(100, 1000));

/** GET /api/files and /api/files/:id/versions. */
export const FilePageSchema = pageSchema(FileDtoSchema);
export type FilePage = z.infer<typeof FilePageSchema>;

/** PATCH /api/files/:id. */
export const RenameFileBodySchema = z.object({ name: z.string().min(1).max(1024) });

/** DELETE /api/files/:id. */
export const DeleteFileQuerySchema = z.object({ allVersions: QueryBoolean.optional() });
export const DeletedFilesSchema = z.object({ deleted: z.number().int() });
export type DeletedFiles = z.infer<typeof DeletedFilesSchema>;

/** POST /api/files (the body is the file's bytes, or multipart). */
export const UploadQuerySchema = z.object({
  name: z.string().min(1).max(1024).optional().describe('Raw-body uploads: the file name'),
  temporary: QueryBoolean.optional().describe('Session-only: deleted when the session ends'),
  category: z.string().max(100).optional(),
  description: z.string().max(2000).optional(),
});
export const UploadedFilesSchema = z.object({ files: z.array(FileDtoSchema) });
export type UploadedFiles = z.infer<typeof UploadedFilesSchema>;

/** GET /api/files/:id/content. */
export const FileContentQuerySchema = z.object({
  token: z.string().max(4096).optional().describe('A signed download token (tools, shared links)'),
  download: QueryBoolean.optional().describe('Always Content-Disposition: attachment'),
});
