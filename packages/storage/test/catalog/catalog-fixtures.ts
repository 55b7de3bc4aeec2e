import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Catalog, FileRecord, NewPendingFile } from '../../src/catalog/types.js';

export interface CatalogContext {
  /** The suite's catalog, open for the whole suite. */
  readonly catalog: Catalog;
  /** Another catalog over the same database (closed by the suite). */
  open(): Promise<Catalog>;
}

export function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A fresh user per test keeps tests independent on a shared database. */
export async function newUser(catalog: Catalog, prefix = 'user'): Promise<string> {
  return catalog.ensureUser(`${prefix}-${randomUUID()}`);
}

export type AddOptions = Partial<Omit<NewPendingFile, 'owner' | 'name'>> & { size?: number; sha256?: string };

/** insertPending + finalize, as the FileStore does around a put. */
export async function addFile(
  catalog: Catalog,
  owner: string,
  name: string,
  options: AddOptions = {},
): Promise<FileRecord> {
  const { size = 10, sha256 = sha(name), ...row } = options;
  const pending = await catalog.insertPending({
    mime: 'text/plain',
    source: 'uploaded',
    ...row,
    owner,
    name,
  });
  return catalog.finalize(owner, pending.id, { size, sha256 });
}

export async function expectFerryError(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'FerryError', code });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
