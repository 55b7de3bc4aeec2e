// Local disk blob driver, the embedded default. A put streams into `<root>/.tmp/`, fsyncs the file,
// renames it onto `<root>/<key>` and fsyncs the directory: rename is atomic on one filesystem, so a
// crash at any point leaves either the previous blob or the new one under the key, and at worst a
// temp file that `sweepPartials` removes. Readers keep their open file, so an overwrite never
// changes the bytes of a read already under way.

import { randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, opendir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { addAbortSignal, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobDriver, BlobEntry, BlobPartial, BlobPutOptions, BlobStat, ByteRange } from './driver.js';
import { createAbortError, createBlobError, createOptionError } from './errors.js';
import { assertBlobKey, assertBlobPrefix, assertByteRange, assertRangeWithinSize } from './keys.js';

const DRIVER_NAME = 'local';
const TEMP_DIR = '.tmp';
const TEMP_SUFFIX = '.part';
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/**
 * Larger than fs's 64 KiB default for fewer syscalls on multi-GiB reads; not larger still, as each
 * concurrent download holds up to this much.
 */
const READ_HIGH_WATER_MARK = 1024 * 1024;

export interface LocalBlobDriverOptions {
  /**
   * Directory that holds the blobs, e.g. `./.ferry/blobs`; resolved against the working directory
   * once, when the driver is created. Created (mode 0700) on the first put. Temp files live in its
   * `.tmp/` subdirectory, on the same filesystem so that rename stays atomic.
   */
  root: string;
}

export function createLocalBlobDriver(options: LocalBlobDriverOptions): BlobDriver {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw createOptionError(DRIVER_NAME, 'root');
  }
  const root = resolve(options.root);
  const tempDir = join(root, TEMP_DIR);
  // Temp files of puts still running in this process; sweepPartials never removes them.
  const active = new Set<string>();

  const pathOf = (key: string): string => {
    assertBlobKey(DRIVER_NAME, key);
    return join(root, ...key.split('/'));
  };

  const keysUnder = (prefix: string): AsyncIterable<string> => {
    assertBlobPrefix(DRIVER_NAME, prefix);
    // Walk only the directory that can hold matches, then filter on the full string prefix.
    const slash = prefix.lastIndexOf('/');
    const base = slash === -1 ? '' : prefix.slice(0, slash);
    return walk(base === '' ? root : join(root, ...base.split('/')), base, prefix);
  };

  /** Temp files last written before the cutoff, except those of puts still running here. */
  async function* stalePartials(olderThanMs: number): AsyncGenerator<BlobPartial> {
    const cutoff = Date.now() - olderThanMs;
    let dir: Awaited<ReturnType<typeof opendir>>;
    try {
      dir = await opendir(tempDir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for await (const entry of dir) {
      if (!entry.name.endsWith(TEMP_SUFFIX)) continue;
      const path = join(tempDir, entry.name);
      if (active.has(path)) continue;
      try {
        const info = await stat(path);
        if (info.mtimeMs > cutoff) continue;
        yield { id: entry.name, startedAt: info.mtime, size: info.size };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  }

  return {
    name: DRIVER_NAME,

    async ping(pingOptions: { signal?: AbortSignal } = {}): Promise<void> {
      const { signal } = pingOptions;
      signal?.throwIfAborted();
      // What a put does first, on an empty temp file: a root replaced by a file, made read-only
      // or on a full or read-only filesystem fails here. A crash leaves a temp file the sweep removes.
      const probePath = join(tempDir, `${randomUUID()}${TEMP_SUFFIX}`);
      active.add(probePath);
      try {
        await mkdir(tempDir, { recursive: true, mode: DIR_MODE });
        const handle = await open(probePath, 'wx', FILE_MODE);
        await handle.close();
        await unlink(probePath);
      } finally {
        active.delete(probePath);
      }
      signal?.throwIfAborted();
    },

    async put(key: string, body: Readable, putOptions: BlobPutOptions = {}): Promise<{ size: number }> {
      const { signal } = putOptions;
      const tempPath = join(tempDir, `${randomUUID()}${TEMP_SUFFIX}`);
      let handle: FileHandle | undefined;
      active.add(tempPath);
      try {
        const target = pathOf(key);
        if (signal?.aborted) throw createAbortError(DRIVER_NAME, signal);
        await mkdir(tempDir, { recursive: true, mode: DIR_MODE });
        await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
        handle = await open(tempPath, 'wx', FILE_MODE);
        const size = await writeAll(handle, signal ? addAbortSignal(signal, body) : body);
        // An abort that lands after the last byte still wins until the rename commits the blob.
        if (signal?.aborted) throw createAbortError(DRIVER_NAME, signal);
        await handle.sync();
        await handle.close();
        handle = undefined;
        await rename(tempPath, target);
        await syncDirectory(dirname(target));
        return { size };
      } catch (error) {
        body.destroy();
        await handle?.close().catch(() => undefined);
        await unlink(tempPath).catch(() => undefined);
        throw error;
      } finally {
        active.delete(tempPath);
      }
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const path = pathOf(key);
      if (range) assertByteRange(DRIVER_NAME, range);
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        throw isMissing(error) ? notFound(key, error) : error;
      }
      try {
        const info = await handle.stat();
        // A key that names a directory of other blobs is not a blob.
        if (!info.isFile()) throw notFound(key);
        if (range) assertRangeWithinSize(DRIVER_NAME, key, range, info.size);
        // The stream owns the handle from here (autoClose) and reads the inode opened above, so a
        // concurrent overwrite (a rename onto the path) does not change what this reader sees.
        return handle.createReadStream({
          start: range?.start,
          end: range?.end,
          highWaterMark: READ_HIGH_WATER_MARK,
        });
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    },

    async stat(key: string): Promise<BlobStat | null> {
      const path = pathOf(key);
      try {
        const info = await stat(path);
        return info.isFile() ? { size: info.size } : null;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      const path = pathOf(key);
      try {
        await unlink(path);
      } catch (error) {
        // EISDIR: the key names a directory of other blobs, so there is no blob to delete.
        if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return;
        throw error;
      }
      // Empty parent directories are left in place on purpose: removing them would race with a
      // concurrent put into the same directory (its mkdir done, its rename not yet).
    },

    list: keysUnder,

    listEntries(prefix: string): AsyncIterable<BlobEntry> {
      const keys = keysUnder(prefix);
      return (async function* () {
        for await (const key of keys) {
          try {
            const info = await stat(join(root, ...key.split('/')));
            if (info.isFile()) yield { key, size: info.size, modifiedAt: info.mtime };
          } catch (error) {
            // Deleted between the directory read and the stat: no longer a blob to report.
            if (!isMissing(error)) throw error;
          }
        }
      })();
    },

    listPartials: stalePartials,

    async sweepPartials(olderThanMs: number): Promise<number> {
      let removed = 0;
      for await (const partial of stalePartials(olderThanMs)) {
        try {
          await unlink(join(tempDir, partial.id));
          removed += 1;
        } catch (error) {
          // Gone already: another sweeper, or its put just failed and cleaned up.
          if (!isMissing(error)) throw error;
        }
      }
      return removed;
    },
  };
}

async function* walk(dirPath: string, keyBase: string, prefix: string): AsyncGenerator<string> {
  let dir: Awaited<ReturnType<typeof opendir>>;
  try {
    dir = await opendir(dirPath);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for await (const entry of dir) {
    // Dot names are never keys (see keys.ts); this skips `.tmp/` at the root.
    if (entry.name.startsWith('.')) continue;
    const key = keyBase === '' ? entry.name : `${keyBase}/${entry.name}`;
    if (entry.isDirectory()) {
      // Descend only where a key under this directory can still match the prefix.
      const asDir = `${key}/`;
      if (asDir.startsWith(prefix) || prefix.startsWith(asDir)) {
        yield* walk(join(dirPath, entry.name), key, prefix);
      }
    } else if (entry.isFile() && key.startsWith(prefix)) {
      yield key;
    }
  }
}

/**
 * After this many bytes written since the last one, a datasync starts in the background: the disk
 * writes back while the rest still arrives, so the fsync that must precede the rename finds little
 * left to do instead of the whole file (measured: 0.03-0.07 s instead of 0.32-0.38 s after the last
 * byte of a 1 GiB upload).
 */
const EARLY_WRITEBACK_BYTES = 64 * 1024 * 1024;

/**
 * Copies the stream into the file in batches, each written with one writev: one write per 64 KiB
 * chunk would double the time of a large put. A batch goes to the disk as soon as it holds 1 MiB
 * and no write is under way; while one is, chunks keep gathering, up to 2 MiB, then the body
 * waits. The chunks are written as they came, never joined into a new buffer (a stream
 * iterator's read() joins everything buffered: every byte allocated and copied again).
 * Measured with bench/upload.ts and bench/storage.ts, 3 runs each, against joining batches of
 * whatever read() held: a 1 GiB upload 1.5-2.0 s instead of 1.4-3.1 s, and file puts no slower
 * (1.2-1.3 s). Smaller batches made file puts 30-100% slower; larger ones, uploads slower.
 * A Writable rather than a WriteStream so that the handle stays open for the fsync before rename;
 * pipeline() brings the errors of body, abort and disk here.
 */
async function writeAll(handle: FileHandle, body: Readable): Promise<number> {
  const writer = new BatchWriter(handle);
  await pipeline(body, writer);
  return writer.size;
}

/** A batch is written once it holds this much and the disk is free. */
const WRITE_BATCH_BYTES = 1024 * 1024;
/** While a write is under way, a batch gathers up to this much; then the body waits. */
const MAX_BATCH_BYTES = 2 * 1024 * 1024;

class BatchWriter extends Writable {
  size = 0;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private unsynced = 0;
  private writeback: Promise<void> | undefined;
  /** The write under way, if any. */
  private writing: Promise<void> | undefined;
  /** The callback of a chunk that filled the batch to its maximum: called once it goes to disk. */
  private waiting: ((error?: Error | null) => void) | undefined;
  private failure: Error | undefined;

  constructor(private readonly handle: FileHandle) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failure) {
      callback(this.failure);
      return;
    }
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    this.size += chunk.length;
    if (this.writing === undefined && this.batchBytes >= WRITE_BATCH_BYTES) this.startWrite();
    if (this.batchBytes >= MAX_BATCH_BYTES) this.waiting = callback;
    else callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    // The caller fsyncs and closes the handle next: every write and a background datasync first.
    const finish = async () => {
      while (this.writing || this.batchBytes > 0) {
        if (this.writing) await this.writing;
        else this.startWrite();
        if (this.failure) throw this.failure;
      }
      await this.writeback?.catch(() => undefined);
    };
    finish().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.batch = [];
    // The caller closes the handle next: the write under way and a datasync end first.
    Promise.allSettled([this.writing, this.writeback]).then(() => callback(error));
  }

  /** Hands the whole batch to the disk; when written, the next one goes if it is big enough. */
  private startWrite(): void {
    const buffers = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    // The body may go on: the batch it waited on is on its way.
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
    this.writing = this.writeBatch(buffers, bytes).then(
      () => {
        this.writing = undefined;
        if (this.batchBytes >= WRITE_BATCH_BYTES) this.startWrite();
      },
      (error: unknown) => {
        this.writing = undefined;
        this.failure = error as Error;
        const waiting = this.waiting;
        this.waiting = undefined;
        if (waiting) waiting(this.failure);
        else this.destroy(this.failure);
      },
    );
  }

  private async writeBatch(buffers: Buffer[], bytes: number): Promise<void> {
    // writev(2) on a regular file may still write less than asked (e.g. near a quota).
    for (let rest = buffers, left = bytes; left > 0; ) {
      const { bytesWritten } = await this.handle.writev(rest);
      left -= bytesWritten;
      if (left > 0) rest = [Buffer.concat(rest).subarray(bytesWritten)];
    }
    this.unsynced += bytes;
    if (this.unsynced >= EARLY_WRITEBACK_BYTES && this.writeback === undefined) {
      this.unsynced = 0;
      this.writeback = this.handle.datasync().finally(() => {
        this.writeback = undefined;
      });
      // A failure (EIO) is the final fsync's to report; here it must not go unhandled.
      this.writeback.catch(() => undefined);
    }
  }
}

/** Makes a rename durable: the new directory entry is on disk once this resolves. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function notFound(key: string, cause?: unknown) {
  return createBlobError(DRIVER_NAME, 'ENOENT', `no blob at key ${JSON.stringify(key)}`, { cause });
}
