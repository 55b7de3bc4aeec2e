// The bytes of small files, kept in memory after their first download, so a repeated download of a
// small file costs no second catalog read and no blob open/read/close. Safe to key by blob key
// because a blob is written once, under a key made for its row (blobKeyFor(owner, id)), and never
// rewritten; the key also carries the row's SHA-256 and size, so a row that ever pointed at other
// bytes would miss. The cache never decides who may read: the route reads the file's row for the
// requesting owner first (auth, existence, expiry), and only then asks for the bytes of that row,
// so a deleted or expired file is a 404 as before, whatever is still cached. Bounded in entries'
// size and in total, least recently used dropped first.
import type { FileRecord } from '@ferry/storage';

export interface SmallContentCacheOptions {
  /** Files larger than this are never cached. @default 64 KiB */
  maxEntryBytes?: number;
  /** All cached bytes together. @default 8 MiB */
  maxTotalBytes?: number;
}

export interface SmallContentCache {
  readonly maxEntryBytes: number;
  /** The bytes of `file`: from the cache, else from `read` (kept when they have the row's size). */
  bytesOf(file: FileRecord, read: () => Promise<AsyncIterable<Buffer | string>>): Promise<Buffer>;
  readonly totalBytes: number;
}

export function createSmallContentCache(options: SmallContentCacheOptions = {}): SmallContentCache {
  const maxEntryBytes = options.maxEntryBytes ?? 64 * 1024;
  const maxTotalBytes = options.maxTotalBytes ?? 8 * 1024 * 1024;
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the oldest.
  const entries = new Map<string, Buffer>();
  let totalBytes = 0;

  const keep = (key: string, bytes: Buffer) => {
    if (bytes.length > maxEntryBytes || entries.has(key)) return;
    entries.set(key, bytes);
    totalBytes += bytes.length;
    for (const [oldest, old] of entries) {
      if (totalBytes <= maxTotalBytes) break;
      entries.delete(oldest);
      totalBytes -= old.length;
    }
  };

  return {
    maxEntryBytes,
    async bytesOf(file, read) {
      const key = `${file.blobKey}\n${file.sha256}\n${file.size}`;
      const cached = entries.get(key);
      if (cached !== undefined) {
        entries.delete(key);
        entries.set(key, cached);
        return cached;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of await read())
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      const bytes = Buffer.concat(chunks);
      // Content-Length says file.size: other bytes would be a broken answer, and must not be kept.
      if (bytes.length !== file.size) {
        throw new Error(`blob ${file.blobKey} holds ${bytes.length} bytes, its row says ${file.size}`);
      }
      keep(key, bytes);
      return bytes;
    },
    get totalBytes() {
      return totalBytes;
    },
  };
}
