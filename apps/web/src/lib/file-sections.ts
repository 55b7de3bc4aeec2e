// My Files as the side panel lists it: filtered by the search text, sorted, split into the
// uploaded / generated / deferred sections.
import { type FileDto, type FileSource, matchesAccept } from '@ferry/contract';

export type SortKey = 'name' | 'created' | 'size';
export type SortOrder = 'asc' | 'desc';

export const SECTIONS: { source: FileSource; title: string }[] = [
  { source: 'uploaded', title: 'Uploaded' },
  { source: 'generated', title: 'Generated' },
  { source: 'deferred', title: 'Deferred (drafts to finish)' },
];

function compareFiles(a: FileDto, b: FileDto, key: SortKey, order: SortOrder): number {
  let result: number;
  if (key === 'size') result = a.size - b.size;
  else if (key === 'created') result = Date.parse(a.createdAt) - Date.parse(b.createdAt);
  else result = a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
  if (result === 0) result = a.name.localeCompare(b.name);
  return order === 'asc' ? result : -result;
}

export function groupFiles(
  files: readonly FileDto[],
  query: string,
  key: SortKey,
  order: SortOrder,
): Record<FileSource, FileDto[]> {
  const needle = query.trim().toLowerCase();
  const groups: Record<FileSource, FileDto[]> = { uploaded: [], generated: [], deferred: [] };
  for (const file of files) {
    if (needle && !file.name.toLowerCase().includes(needle)) continue;
    groups[file.source]?.push(file);
  }
  for (const list of Object.values(groups)) list.sort((a, b) => compareFiles(a, b, key, order));
  return groups;
}

/** Does a file match a picker's accept list? The contract's own matcher (SEP-2356 rules). */
export function acceptsFile(
  file: { name: string; mime: string },
  accept: readonly string[] | undefined,
): boolean {
  return matchesAccept(file, accept);
}
