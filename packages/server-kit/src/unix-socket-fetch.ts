// A fetch that sends its HTTP request over a Unix socket: for a client (the SDK's Streamable HTTP
// transport, or a test) that must reach the file provider from a sandbox with no network. The URL
// still gives the path and the Host header; only the connection differs. The response body is
// streamed as it arrives, never buffered.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

export function unixSocketFetch(socketPath: string): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== 'http:')
      throw new TypeError(`unixSocketFetch speaks http only, got ${url.protocol}`);
    request.signal.throwIfAborted();

    const headers: Record<string, string> = { host: url.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });

    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest({
        socketPath,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
      });
      const onAbort = () => outgoing.destroy(request.signal.reason);
      request.signal.addEventListener('abort', onAbort, { once: true });
      outgoing.once('response', (incoming) => {
        // After the headers, an abort ends the body stream instead of the promise.
        incoming.once('close', () => request.signal.removeEventListener('abort', onAbort));
        resolve(incoming);
      });
      outgoing.once('error', (error) => {
        request.signal.removeEventListener('abort', onAbort);
        reject(
          request.signal.aborted ? request.signal.reason : new TypeError('fetch failed', { cause: error }),
        );
      });
      if (request.body === null) outgoing.end();
      else Readable.fromWeb(request.body as NodeReadableStream).pipe(outgoing);
    });

    const responseHeaders = new Headers();
    const raw = response.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2)
      responseHeaders.append(raw[i] as string, raw[i + 1] as string);
    const status = response.statusCode ?? 0;
    const bodyless = request.method === 'HEAD' || NULL_BODY_STATUSES.has(status);
    if (bodyless) response.resume();
    const result = new Response(bodyless ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
      status,
      statusText: response.statusMessage ?? '',
      headers: responseHeaders,
    });
    Object.defineProperty(result, 'url', { value: request.url });
    return result;
  };
}
