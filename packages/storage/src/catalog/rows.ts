import type { FileInfo } from '@ferry/contract';
import type { Selectable } from 'kysely';
import type { FilesTable, UsersTable } from './tables.js';
import type { CatalogTraits } from './traits.js';
import type { FileRecord, PendingFile, UserRecord } from './types.js';

// The one place where dialect value shapes meet the catalog's types, in both directions.

export function toFileRecord(row: Selectable<FilesTable>): FileRecord {
  return {
    id: row.id,
    owner: row.owner,
    name: row.name,
    version: row.version ?? 0,
    size: toNumber(row.size),
    mime: row.mime,
    sha256: row.sha256,
    source: row.source,
    category: row.category,
    description: row.description,
    sessionId: row.session_id,
    persist: Boolean(row.persist),
    expiresAt: row.expires_at === null ? null : toDate(row.expires_at),
    createdAt: toDate(row.created_at),
    info: parseJsonObject(row.info) as FileInfo | null,
    blobKey: row.blob_key,
  };
}

export function toPendingFile(
  row: Pick<Selectable<FilesTable>, 'id' | 'owner' | 'name' | 'blob_key' | 'created_at'>,
): PendingFile {
  return {
    id: row.id,
    owner: row.owner,
    name: row.name,
    blobKey: row.blob_key,
    createdAt: toDate(row.created_at),
  };
}

export function toUserRecord(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    username: row.username,
    createdAt: toDate(row.created_at),
    quotaBytes: row.quota_bytes === null ? null : toNumber(row.quota_bytes),
    flags: parseJsonObject(row.flags),
  };
}

/** pg returns int8 and count() as strings; sizes stay far below 2^53, so a number is exact. */
export function toNumber(value: number | string | bigint | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}

export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function encodeTime(traits: CatalogTraits, date: Date): Date | string {
  return traits.nativeTimestamps ? date : date.toISOString();
}

export function encodeBool(traits: CatalogTraits, value: boolean): boolean | number {
  if (traits.nativeBooleans) return value;
  return value ? 1 : 0;
}

export function encodeJson(value: object | null | undefined): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** A damaged JSON cell reads as null rather than failing every query that touches the row. */
function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
