// The `[SYSTEM: Available files …]` block (tool contract v2.1 §4) for one user, built by the
// contract's formatFileContext from My Files. Only the newest files are fetched for a huge
// library; the block's "…and N more" line is then corrected to the library's real size.
import { FILE_CONTEXT_FOOTER, type FileContextEntry, formatFileContext } from '@ferry/contract';
import type { FileRecord, FileStore } from '@ferry/storage';

export interface FileBlockOptions {
  /** @default 50 */
  maxEntries?: number;
  /** @default 4000 */
  maxChars?: number;
}

const MORE_LINE = /^- …and \d+ more$/;

export async function buildFileBlock(
  files: Pick<FileStore, 'list'>,
  owner: string,
  options: FileBlockOptions = {},
): Promise<string> {
  const maxEntries = options.maxEntries ?? 50;
  const listed = await files.list(owner, {
    sort: 'created',
    order: 'desc',
    limit: Math.min(1000, maxEntries * 2 + 1),
  });
  const block = formatFileContext(listed.items.map(toEntry), {
    maxEntries,
    maxChars: options.maxChars ?? 4000,
  });
  if (block === '' || listed.total <= listed.items.length) return block;
  const lines = block.split('\n');
  const moreAt = lines.length - 2;
  if (!MORE_LINE.test(lines[moreAt] ?? '') || lines[moreAt + 1] !== FILE_CONTEXT_FOOTER) return block;
  const shown = lines.length - 3;
  lines[moreAt] = `- …and ${listed.total - shown} more`;
  return lines.join('\n');
}

function toEntry(record: FileRecord): FileContextEntry {
  const info = record.info ?? {};
  return {
    name: record.name,
    source: record.source,
    createdAt: record.createdAt,
    size: record.size,
    info: {
      ...(info.rows === undefined ? {} : { rows: info.rows }),
      ...(info.columns === undefined ? {} : { columns: info.columns }),
      ...(info.width === undefined ? {} : { width: info.width }),
      ...(info.height === undefined ? {} : { height: info.height }),
      ...(info.pages === undefined ? {} : { pages: info.pages }),
    },
    // The tool's own reason (v2.1 §7); a deferred file stored without one falls back to its
    // description, which says what is pending.
    ...(record.source === 'deferred' && (info.deferredReason ?? record.description)
      ? { deferredReason: info.deferredReason ?? record.description ?? '' }
      : {}),
  };
}

/** The user's text as sent to the model: the block follows it, separated by a blank line. */
export function augmentUserText(text: string, block: string): string {
  return block === '' ? text : `${text}\n\n${block}`;
}
