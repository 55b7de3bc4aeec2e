// A file as the API shows it (FileDto, @ferry/contract): no owner id, blob key or session key.
// toFileDto builds exactly the schema's fields, in the schema's order, and nothing else: the hot
// read routes send it with JSON.stringify, without a zod pass to strip extras
// (http/trusted-json.ts).
import type { FileDto, FileInfo } from '@ferry/contract';
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
    info: record.info ? toInfoDto(record.info) : null,
    ...(record.unchanged ? { unchanged: true } : {}),
  };
}

const INFO_NUMBERS = ['rows', 'columns', 'width', 'height', 'pages'] as const;

/**
 * The FileInfoSchema fields of a stored info object, with the types the schema allows: the cell is
 * JSON in the catalog, so anything else in it (a key a later version wrote, a damaged value) stays
 * out, as the schema's strip did.
 */
function toInfoDto(info: FileInfo): FileInfo {
  const out: FileInfo = {};
  for (const key of INFO_NUMBERS) if (typeof info[key] === 'number') out[key] = info[key];
  if (typeof info.deferredReason === 'string') out.deferredReason = info.deferredReason;
  const actions = info.nextActions;
  if (Array.isArray(actions) && actions.every((action) => typeof action === 'string')) {
    out.nextActions = [...actions];
  }
  return out;
}
