// A file as the API shows it (FileDto, @ferry/contract): no owner id, blob key or session key.
// toFileDto builds only these fields, and the response schema strips anything else.
import type { FileDto } from '@ferry/contract';
import type { FileRecord } from '@ferry/storage';

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
