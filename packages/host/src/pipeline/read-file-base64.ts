// Reads a file of My Files into base64 (or a data URI) for tools that take bytes inline
// (file_data_base64, data-uri mode, x-mcp-file). The blob is streamed and encoded chunk by chunk,
// so only the base64 text is held, never the bytes as one Buffer too; the size is bounded by the
// base64 limit, checked again while reading in case the blob is not what the catalog says.
import { dataUriPrefix, FerryError } from '@ferry/contract';
import type { FileRecord, FileStore } from '@ferry/storage';

export interface ReadBase64Options {
  files: FileStore;
  owner: string;
  file: FileRecord;
  /** Bytes; more than this fails with E_FILE_TOO_LARGE. */
  limitBytes: number;
  /** Prefix `data:<mime>;base64,` (RFC 2397). */
  dataUri?: boolean;
  /**
   * With dataUri: carry the file's name as a `name=` parameter, `data:<mime>;name=<name>;base64,`
   * (earlier SEP-2356 drafts; the final text has a separate filename argument instead). @default false
   */
  nameParam?: boolean;
  signal?: AbortSignal;
}

export async function readFileBase64(options: ReadBase64Options): Promise<string> {
  const { files, owner, file, limitBytes } = options;
  const tooLarge = (size: number) =>
    new FerryError('E_FILE_TOO_LARGE', `${file.name} is too large to hand over inline`, {
      file_size_bytes: size,
      current_limit_bytes: limitBytes,
    });
  if (file.size > limitBytes) throw tooLarge(file.size);

  const prefix = options.nameParam ? { mime: file.mime, name: file.name } : { mime: file.mime };
  const parts: string[] = options.dataUri ? [dataUriPrefix(prefix)] : [];
  const { stream } = await files.get(owner, { id: file.id });
  const abort = () => stream.destroy(options.signal?.reason ?? new Error('aborted'));
  options.signal?.addEventListener('abort', abort, { once: true });
  let carry = Buffer.alloc(0);
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limitBytes) throw tooLarge(total);
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      // Encode whole 3-byte groups only, so no padding lands in the middle of the text.
      const whole = bytes.length - (bytes.length % 3);
      parts.push(bytes.subarray(0, whole).toString('base64'));
      carry = Buffer.from(bytes.subarray(whole));
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    stream.destroy();
  }
  options.signal?.throwIfAborted();
  if (carry.length > 0) parts.push(carry.toString('base64'));
  return parts.join('');
}
