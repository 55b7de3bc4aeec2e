// Reading a file argument in whatever form the host handed it over (DESIGN.md step 2): a local
// path (file mode `path`, e.g. /tmp/alice/input_files/data.csv), a short-lived signed http(s) URL
// (file mode `url`, the default for remote servers) or an RFC 2397 data URI (file mode `data-uri`,
// and SEP-2356 x-mcp-file inputs). The tool gets one shape back, always with a local path, so the
// same code reads all three; downloads are streamed to a temporary file, never held in memory.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { fileURLToPath } from 'node:url';
import {
  extensionForMime,
  FerryError,
  isGenericMime,
  mimeEssence,
  mimeFromName,
  normalizeFilename,
  parseDataUri,
} from '@ferry/contract';

export type InjectedFileSource = 'path' | 'url' | 'data-uri';

export interface InjectedFile {
  source: InjectedFileSource;
  /** The file's name: the path's base name, the download's name, or the data URI's `name=`. */
  name: string;
  /** `type/subtype`; from the data URI or Content-Type, else guessed from the name. */
  mime: string;
  size: number;
  /** A local path holding the bytes: the given path, or a temporary copy for URLs and data URIs. */
  path: string;
  /** Deletes the temporary copy; a no-op for a given local path. Safe to call twice. */
  dispose(): Promise<void>;
}

export interface ReadInjectedFileOptions {
  /** Larger files are refused with FerryError E_FILE_TOO_LARGE. @default no limit */
  maxBytes?: number;
  /** Aborts a download. */
  signal?: AbortSignal;
  /** Where downloads and decoded data URIs are written. @default os.tmpdir() */
  tempDir?: string;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/**
 * Resolves a file argument to a local file. Throws FerryError: E_FILE_NOT_FOUND (missing path,
 * HTTP 404), E_FILE_TOO_LARGE (over `maxBytes`), E_INVALID_INPUT (malformed data URI, other HTTP
 * failures). Error messages never include a URL's query string: it holds the signed token.
 */
export async function readInjectedFile(
  argument: string,
  options: ReadInjectedFileOptions = {},
): Promise<InjectedFile> {
  if (typeof argument !== 'string' || argument === '') {
    throw new FerryError('E_INVALID_INPUT', 'The file argument is empty');
  }
  if (/^data:/i.test(argument)) return fromDataUri(argument, options);
  if (/^https?:\/\//i.test(argument)) return fromUrl(new URL(argument), options);
  return fromPath(/^file:/i.test(argument) ? fileURLToPath(argument) : argument, options);
}

async function fromPath(path: string, options: ReadInjectedFileOptions): Promise<InjectedFile> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) {
    throw new FerryError('E_FILE_NOT_FOUND', `File not found: ${path}`, { name: basename(path) });
  }
  checkSize(info.size, options.maxBytes, basename(path));
  const name = basename(path);
  return { source: 'path', name, mime: mimeFromName(name), size: info.size, path, dispose: async () => {} };
}

async function fromDataUri(text: string, options: ReadInjectedFileOptions): Promise<InjectedFile> {
  const parsed = parseDataUri(text);
  if (!parsed.ok) throw new FerryError('E_INVALID_INPUT', `Malformed data URI: ${parsed.reason}`);
  const { mime, byteLength } = parsed.value;
  const name = normalizeFilename(parsed.value.name ?? `file.${extensionForMime(mime) ?? 'bin'}`);
  checkSize(byteLength, options.maxBytes, name);
  const temp = await tempFile(name, options);
  try {
    await writeFile(temp.path, parsed.value.data(), { flag: 'wx' });
  } catch (error) {
    await temp.dispose();
    throw error;
  }
  return { source: 'data-uri', name, mime, size: byteLength, ...temp };
}

async function fromUrl(url: URL, options: ReadInjectedFileOptions): Promise<InjectedFile> {
  const shown = `${url.origin}${url.pathname}`;
  const init: RequestInit = { redirect: 'follow' };
  if (options.signal) init.signal = options.signal;
  const response = await (options.fetch ?? globalThis.fetch)(url, init);
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const code = response.status === 404 ? 'E_FILE_NOT_FOUND' : 'E_INVALID_INPUT';
    throw new FerryError(code, `Download of ${shown} failed: HTTP ${response.status}`, {
      status: response.status,
    });
  }
  const name = normalizeFilename(
    dispositionName(response.headers.get('content-disposition')) ?? lastSegment(url) ?? 'download',
  );
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared)) {
    try {
      checkSize(declared, options.maxBytes, name);
    } catch (error) {
      await response.body.cancel();
      throw error;
    }
  }
  const contentType = mimeEssence(response.headers.get('content-type') ?? '');
  const mime = contentType && !isGenericMime(contentType) ? contentType : mimeFromName(name);
  const temp = await tempFile(name, options);
  let size = 0;
  // Counts while streaming, because Content-Length may be absent or wrong.
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (options.maxBytes !== undefined && size > options.maxBytes) {
        callback(tooLarge(size, options.maxBytes, name));
      } else callback(null, chunk);
    },
  });
  try {
    const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    await pipeline(body, limit, createWriteStream(temp.path, { flags: 'wx' }));
  } catch (error) {
    await temp.dispose();
    throw error;
  }
  return { source: 'url', name, mime, size, ...temp };
}

async function tempFile(
  name: string,
  options: ReadInjectedFileOptions,
): Promise<{ path: string; dispose: () => Promise<void> }> {
  // A private directory per file keeps the original name without colliding with other calls.
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'ferry-input-'));
  return { path: join(dir, name), dispose: () => rm(dir, { recursive: true, force: true }) };
}

function checkSize(size: number, maxBytes: number | undefined, name: string): void {
  if (maxBytes !== undefined && size > maxBytes) throw tooLarge(size, maxBytes, name);
}

function tooLarge(size: number, maxBytes: number, name: string): FerryError {
  return new FerryError('E_FILE_TOO_LARGE', `${name} exceeds the limit of ${maxBytes} bytes`, {
    file_size_bytes: size,
    current_limit_bytes: maxBytes,
  });
}

/** RFC 6266 `filename*=UTF-8''…` (preferred) or `filename="…"`. */
function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed escape: fall through to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  const value = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return value || undefined;
}

function lastSegment(url: URL): string | undefined {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
