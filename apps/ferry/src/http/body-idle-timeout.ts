// A request body that stops arriving is cut off after `server.bodyIdleTimeoutMs` without a byte.
// The app has no total request timeout (requestTimeout 0: a 1 GiB upload over a slow link takes
// what it takes), so without this a client could open uploads, send a few bytes and stall,
// holding a connection, an upload and a partial blob each, for ever.
// Why not the socket's idle timeout (socket.setTimeout, fastify's connectionTimeout): it counts
// the server's writes as activity and also runs while the server is the one sending, so it would
// either miss a stalled upload or cut an idle event stream or a long call. Watched here is the
// request body only, from the moment the request arrives until it is complete:
// - progress is the socket's bytesRead growing. Node's HTTP parser reads the socket natively, so
//   there are no 'data' events to count, and reading the body here would take it from the route.
// - bytes waiting unread in the request's buffer mean Ferry is the slow side (a disk or S3 pushing
//   back); the client is not idle then, whatever bytesRead says.
// Before the answer has started the client gets 408 with the error envelope and the connection
// closes; after it, the connection just closes. Either way the route sees its request abort (an
// upload's partial bytes are removed, a multipart request's stored files are deleted again).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { errorEnvelope } from '@ferry/contract';
import { rawResponse } from './error-handler.js';

export interface BodyIdleTimeoutOptions {
  idleMs: number;
  /** Called when a request is cut off (for the log). */
  onTimeout?: (request: IncomingMessage) => void;
}

/**
 * Watches the body of every request the server receives. On the Node server rather than a
 * fastify hook, so requests fastify answers before any hook (a malformed URL) are covered too.
 */
export function installBodyIdleTimeout(server: Server, options: BodyIdleTimeoutOptions): void {
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (hasBody(request)) watchBody(request, response, options);
  });
}

function hasBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

function watchBody(
  request: IncomingMessage,
  response: ServerResponse,
  options: BodyIdleTimeoutOptions,
): void {
  const { idleMs } = options;
  const socket = request.socket;
  let lastBytes = socket.bytesRead;
  let lastProgress = performance.now();
  // Checked ten times per period: a stalled body is cut off between 1 and 1.2 periods after its
  // last byte, and a busy server does a few cheap comparisons per upload and period.
  const timer = setInterval(check, Math.max(Math.floor(idleMs / 10), 5));
  timer.unref();
  const stop = () => clearInterval(timer);
  // Not on the socket: a keep-alive connection would collect one listener per request.
  request.once('close', stop);

  function check(): void {
    if (request.complete || request.destroyed || socket.destroyed) {
      stop();
      return;
    }
    const bytes = socket.bytesRead;
    if (bytes !== lastBytes || request.readableLength > 0) {
      lastBytes = bytes;
      lastProgress = performance.now();
      return;
    }
    if (performance.now() - lastProgress < idleMs) return;
    stop();
    options.onTimeout?.(request);
    cutOff(response, idleMs);
  }
}

function cutOff(response: ServerResponse, idleMs: number): void {
  const socket = response.socket;
  if (!socket) return;
  const destroy = () => {
    socket.destroy();
  };
  if (response.headersSent || response.writableEnded || !socket.writable) {
    destroy();
    return;
  }
  // Written to the socket, not through `response`: ending the response while the body is unread
  // makes Node dump the rest of the body, and whatever consumes it (a multipart parser) would
  // then wait for ever instead of seeing the request abort when the socket closes.
  const envelope = errorEnvelope(
    'E_INVALID_INPUT',
    { field: 'body', cause: 'body_idle_timeout', idle_timeout_ms: idleMs },
    `The request body stalled: no byte arrived for ${idleMs} ms`,
  );
  socket.end(rawResponse(408, 'Request Timeout', envelope), destroy);
  // A client that does not read its answer either must not keep the socket.
  setTimeout(destroy, idleMs).unref();
}
