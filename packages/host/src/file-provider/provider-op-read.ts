// read_file, read_file_binary and calculate_file_hash: open the content of a workspace file or a
// My Files version (size checked before a byte is read), then stream it through a decoder, a
// base64 encoder or a hash. Only read_file's string and read_file_binary's base64 are held whole:
// they are the answer, bounded by the size limit.
import { createHash } from 'node:crypto';
import { addAbortSignal, type Readable } from 'node:stream';
import {
  acceptPath,
  findMyFile,
  type OperationContext,
  type OperationOutcome,
  openResolvedFile,
  resolveWorkspacePath,
} from './provider-op-context.js';
import { createChunkDecoder, EncodingError } from './provider-op-decode.js';
import { notAFile, notFound, providerError, tooLarge } from './provider-op-errors.js';
import type { ProviderToolArgs } from './provider-tool-definitions.js';

const HASH_ALGORITHMS: Record<string, string> = {
  md5: 'md5',
  sha1: 'sha1',
  sha256: 'sha256',
  sha512: 'sha512',
};

export async function readFile(
  context: OperationContext,
  args: ProviderToolArgs['read_file'],
): Promise<OperationOutcome> {
  const encoding = args.encoding ?? 'utf-8';
  const decoder = createChunkDecoder(encoding);
  if (decoder === undefined) throw providerError(`Unknown encoding: ${JSON.stringify(encoding)}`);
  const stream = await openContent(context, args.file_path, sizeLimit(context, args.max_size));
  const parts: string[] = [];
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).length;
      parts.push(decoder.write(chunk as Buffer));
    }
    parts.push(decoder.end());
  } catch (error) {
    stream.destroy();
    if (error instanceof EncodingError) {
      throw providerError(`Encoding error: ${args.file_path} holds ${error.message} (encoding ${encoding})`);
    }
    throw error;
  }
  return { value: parts.join(''), bytes };
}

export async function readFileBinary(
  context: OperationContext,
  args: ProviderToolArgs['read_file_binary'],
): Promise<OperationOutcome> {
  const stream = await openContent(context, args.file_path, sizeLimit(context, args.max_size));
  const parts: string[] = [];
  let carry = Buffer.alloc(0);
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    // Whole 3-byte groups only, so the pieces concatenate into one valid base64 string.
    const data = carry.length === 0 ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer]);
    const whole = data.length - (data.length % 3);
    parts.push(data.subarray(0, whole).toString('base64'));
    carry = Buffer.from(data.subarray(whole));
  }
  parts.push(carry.toString('base64'));
  return { value: parts.join(''), bytes };
}

export async function calculateFileHash(
  context: OperationContext,
  args: ProviderToolArgs['calculate_file_hash'],
): Promise<OperationOutcome> {
  const requested = args.algorithm ?? 'md5';
  const algorithm = HASH_ALGORITHMS[requested.trim().toLowerCase().replace(/[-_]/g, '')];
  if (algorithm === undefined) {
    throw providerError(
      `Invalid hash algorithm: ${JSON.stringify(requested)} (use md5, sha1, sha256 or sha512)`,
    );
  }
  const stream = await openContent(context, args.file_path, undefined);
  const hash = createHash(algorithm);
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { value: hash.digest('hex'), bytes };
}

/** min(max_size, settings.maxFileSize); max_size 0 means "not given", as in the spec's `if max_size`. */
function sizeLimit(context: OperationContext, maxSize: number | undefined): number {
  const ceiling = context.scope.settings.maxFileSize;
  return maxSize ? Math.min(maxSize, ceiling) : ceiling;
}

/**
 * The content of the file a caller names, as a stream that the operation's signal destroys.
 * `maxBytes` is checked against the size before anything is read.
 */
async function openContent(
  context: OperationContext,
  raw: string,
  maxBytes: number | undefined,
): Promise<Readable> {
  const path = acceptPath(context, raw);
  switch (path.kind) {
    case 'my-files-root':
    case 'my-files-dir':
      throw notAFile(path.toolPath);
    case 'my-files-missing':
      throw notFound(path.toolPath);
    case 'my-files-file': {
      const record = await findMyFile(context, path);
      if (maxBytes !== undefined && record.size > maxBytes) throw tooLarge(record.size, maxBytes);
      context.signal.throwIfAborted();
      const { stream } = await context.scope.files.get(context.scope.owner, { id: record.id });
      return addAbortSignal(context.signal, stream);
    }
    case 'workspace': {
      const resolved = await resolveWorkspacePath(context, path, true);
      if (resolved.stats.isDirectory()) throw notAFile(path.toolPath);
      if (!resolved.stats.isFile()) throw providerError(`Path is not a regular file: ${path.toolPath}`);
      if (maxBytes !== undefined && resolved.stats.size > maxBytes)
        throw tooLarge(resolved.stats.size, maxBytes);
      const file = await openResolvedFile(context, resolved.hostPath, path.toolPath, maxBytes);
      if (context.signal.aborted) {
        await file.close();
        context.signal.throwIfAborted();
      }
      return addAbortSignal(context.signal, file.createReadStream());
    }
  }
}
