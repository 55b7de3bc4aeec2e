// The CLI's side of the HTTP API, over node:http(s) so uploads and downloads stream with progress
// and a 10 GB file never sits in memory.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ErrorEnvelope,
  type FileDto,
  formatBytes,
  type MeDto,
  type UploadedFiles,
} from '@ferry/contract';
import { connectHint } from './connect-hint.js';
import { type ApiErrorInfo, CliError, EXIT } from './exit-codes.js';

export interface ApiClientOptions {
  url: string;
  /** Sent as the proxy header, for a Ferry in proxy mode reached from a trusted address. */
  user?: string;
  userHeader?: string;
  /** Proxy mode's shared secret, sent with `user` (the CLI takes it from FERRY_PROXY_SECRET). */
  proxySecret?: string;
  /** @default 'x-ferry-proxy-secret' */
  proxySecretHeader?: string;
  session?: string;
}

export type Progress = (done: number, total: number | undefined) => void;

export interface ApiClient {
  readonly url: string;
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
  upload(file: string, options?: { name?: string; onProgress?: Progress; query?: string }): Promise<FileDto>;
  download(path: string, to: string | NodeJS.WritableStream, onProgress?: Progress): Promise<number>;
  /** The raw response of a GET (for the SSE stream). */
  open(path: string, headers?: Record<string, string>): Promise<IncomingMessage>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = new URL(options.url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new CliError(`--url must be an http(s) URL, got ${options.url}`, EXIT.usage);
  }
  const headers = (extra: Record<string, string> = {}) => ({
    ...(options.user ? { [options.userHeader ?? 'x-forwarded-user']: options.user } : {}),
    ...(options.user && options.proxySecret
      ? { [options.proxySecretHeader ?? 'x-ferry-proxy-secret']: options.proxySecret }
      : {}),
    ...(options.session ? { 'x-ferry-session': options.session } : {}),
    ...extra,
  });

  const send = (
    method: string,
    path: string,
    extra: Record<string, string>,
    body?: Buffer | Readable,
  ): Promise<IncomingMessage> =>
    new Promise((resolveResponse, reject) => {
      const target = new URL(path, base);
      const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
        target,
        { method, headers: headers(extra) },
        resolveResponse,
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH') {
          reject(
            new CliError(
              `Cannot reach Ferry at ${base.origin} (${error.code}): is it running? (ferry start)`,
              EXIT.unreachable,
            ),
          );
        } else if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
          reject(new CliError(`Ferry closed the connection (${error.code})`, EXIT.server));
        } else reject(error);
      });
      if (body === undefined) request.end();
      else if (Buffer.isBuffer(body)) request.end(body);
      else body.pipe(request);
    });

  const failed = async (response: IncomingMessage): Promise<never> => {
    const text = await readText(response);
    const status = response.statusCode ?? 500;
    let message = `HTTP ${status}`;
    const info: ApiErrorInfo = { status };
    try {
      const envelope = JSON.parse(text) as Partial<ErrorEnvelope>;
      if (envelope.results?.error)
        message = `${envelope.results.error} (${envelope.meta_data?.error_code ?? message})`;
      if (envelope.meta_data?.error_code) info.code = envelope.meta_data.error_code;
      if (envelope.meta_data?.details) info.details = envelope.meta_data.details;
      const connect = connectHint(info.details, base);
      if (connect) message = `${message}\n${connect}`;
    } catch {
      if (text) message = `${message}: ${text.slice(0, 200)}`;
    }
    // 507 E_QUOTA_EXCEEDED is the user's quota, not Ferry failing: refused, like a file too large.
    const serverFault = status >= 500 && info.code !== 'E_QUOTA_EXCEEDED';
    throw new CliError(message, serverFault ? EXIT.server : EXIT.refused, info);
  };

  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const response = await send(
      method,
      path,
      payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {},
      payload,
    );
    if ((response.statusCode ?? 0) >= 400) return failed(response);
    const text = await readText(response);
    return (text ? JSON.parse(text) : undefined) as T;
  };

  /** The user's per-file limit (GET /api/me), read once; undefined when it cannot be read. */
  let limit: Promise<number | undefined> | undefined;

  return {
    url: base.origin,
    json,
    async upload(file, opts = {}) {
      const size = (await stat(file).catch(() => undefined))?.size;
      if (size === undefined) throw new CliError(`No such file: ${file}`, EXIT.usage);
      const name = opts.name ?? basename(file);
      // Ferry refuses a body over its limit before reading it and closes the connection; a client
      // still sending may then see the reset before the answer. Checked here first, so such a file
      // is refused the same way every time (and a 10 GB file is not read for nothing).
      limit ??= json<MeDto>('GET', '/api/me').then(
        (me) => me.limits.maxFileSizeBytes,
        () => undefined,
      );
      const max = await limit;
      if (max !== undefined && size > max) {
        throw new CliError(
          `${name} is ${formatBytes(size)} (${size} bytes); Ferry takes at most ${formatBytes(max)} (${max} bytes) per file (E_FILE_TOO_LARGE)`,
          EXIT.refused,
          { status: 413, code: 'E_FILE_TOO_LARGE', details: { fileSizeBytes: size, currentLimitBytes: max } },
        );
      }
      let done = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          done += chunk.length;
          opts.onProgress?.(done, size);
          callback(null, chunk);
        },
      });
      const body = createReadStream(file).pipe(counter);
      const query = `?name=${encodeURIComponent(name)}${opts.query ? `&${opts.query}` : ''}`;
      const response = await send(
        'POST',
        `/api/files${query}`,
        { 'content-type': 'application/octet-stream', 'content-length': String(size) },
        body,
      );
      if ((response.statusCode ?? 0) >= 400) return failed(response);
      const result = JSON.parse(await readText(response)) as UploadedFiles;
      return result.files[0] as FileDto;
    },
    async download(path, to, onProgress) {
      const response = await send('GET', path, {});
      if ((response.statusCode ?? 0) >= 400) return failed(response);
      const total = Number(response.headers['content-length']);
      let done = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          done += chunk.length;
          onProgress?.(done, Number.isFinite(total) ? total : undefined);
          callback(null, chunk);
        },
      });
      const sink = typeof to === 'string' ? createWriteStream(to) : to;
      await pipeline(response, counter, sink, { end: typeof to === 'string' });
      return done;
    },
    async open(path, extra = {}) {
      const response = await send('GET', path, extra);
      if ((response.statusCode ?? 0) >= 400) return failed(response);
      return response;
    },
  };
}

async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
