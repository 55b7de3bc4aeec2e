// One place turns every failure into an HTTP status and the v2.1 §12 envelope (fastify's
// lib/error-handler.js): FerryError (ApiError among them) by the contract's ERROR_CODES table,
// fastify's schema validation as 400 naming the field, fastify's and multipart's own 4xx errors
// by their status. Anything else is a bug: 500 with a generic message, the details in the log.
import { type ErrorEnvelope, errorEnvelope, FerryError } from '@ferry/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ApiErrorCode } from './api-error.js';
import type { PathRedactor } from './redact-paths.js';

export function installErrorHandler(app: FastifyInstance, redact: PathRedactor): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, envelope } = toResponse(error, request);
    if (status >= 500) {
      // An expected failure (a tool server that cannot start, a timeout) is one line, its
      // reason; only the unexpected (E_INTERNAL, a bug) carries a stack.
      if (error instanceof FerryError && error.code !== 'E_INTERNAL') {
        const server = error.details?.server;
        // The cause (a store's own error) is for the operator, not the client's envelope.
        const cause = error.cause instanceof Error ? error.cause.message : undefined;
        request.log.warn(
          { code: error.code, ...(typeof server === 'string' && { server }), ...(cause && { cause }) },
          error.message,
        );
      } else request.log.error({ err: error }, 'request failed');
    }
    sendEnvelope(reply, status, redact(envelope));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError('E_NOT_FOUND', `No route ${request.method} ${pathOf(request.url)}`);
    sendEnvelope(reply, error.status, error.toEnvelope());
  });
}

function sendEnvelope(reply: FastifyReply, status: number, envelope: ErrorEnvelope): void {
  if (reply.sent || reply.raw.headersSent) return;
  reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8');
  // Serialized here rather than by a route's response schema: an error may come from a route
  // without one (404, a hook) and must look the same everywhere.
  reply.serializer((payload: unknown) => JSON.stringify(payload)).send(envelope);
}

function toResponse(
  error: FastifyError,
  request: FastifyRequest,
): { status: number; envelope: ErrorEnvelope } {
  if (error instanceof FerryError) {
    if (error.code === 'E_INTERNAL') return internal(request);
    return { status: error.status, envelope: error.toEnvelope() };
  }
  if (Array.isArray(error.validation) && error.validation.length > 0) {
    const where = error.validationContext ?? 'request';
    const problems = error.validation.map((issue) => {
      const path = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
      return `${where}${path ? `.${path}` : ''}: ${issue.message ?? 'is invalid'}`;
    });
    const field = problems[0]?.split(':', 1)[0] ?? where;
    return {
      status: 400,
      envelope: errorEnvelope(
        'E_INVALID_INPUT',
        { field, problems },
        `Invalid request: ${problems.join('; ')}`,
      ),
    };
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    if (error.code === 'FST_REQ_FILE_TOO_LARGE') {
      return { status: 413, envelope: errorEnvelope('E_FILE_TOO_LARGE', {}, 'File exceeds the size limit') };
    }
    const code = API_CODE_BY_STATUS[status];
    const message = error.message || 'Bad request';
    if (code) return { status, envelope: new ApiError(code, message, { cause: error.code }).toEnvelope() };
    return {
      status,
      envelope: errorEnvelope('E_INVALID_INPUT', error.code ? { cause: error.code } : {}, message),
    };
  }
  return internal(request);
}

const API_CODE_BY_STATUS: Partial<Record<number, ApiErrorCode>> = {
  401: 'E_UNAUTHORIZED',
  403: 'E_FORBIDDEN',
  404: 'E_NOT_FOUND',
  405: 'E_METHOD_NOT_ALLOWED',
  409: 'E_CONFLICT',
  413: 'E_PAYLOAD_TOO_LARGE',
  415: 'E_UNSUPPORTED_MEDIA_TYPE',
};

function internal(request: FastifyRequest): { status: number; envelope: ErrorEnvelope } {
  return {
    status: 500,
    envelope: errorEnvelope('E_INTERNAL', { request_id: request.id }, 'Internal error'),
  };
}

/** The path without the query, which may hold a download token. */
export function pathOf(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/**
 * Requests Node's parser rejects never reach a route (fastify's clientErrorHandler): they get the
 * same envelope, written to the socket by hand, and the connection closes.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const envelope = errorEnvelope('E_INVALID_INPUT', { cause: error.code ?? 'parse' }, message);
  if (socket.writable) socket.write(rawResponse(status, text, envelope));
  socket.destroy();
}

/**
 * A whole HTTP/1.1 response carrying `envelope`, for the few answers written straight to the
 * socket (the request never reached fastify, or its body is being cut off); the connection closes.
 */
export function rawResponse(status: number, statusText: string, envelope: ErrorEnvelope): string {
  const body = JSON.stringify(envelope);
  return `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`;
}

/** Fastify's own routing failures (a URL that is not valid percent-encoding): 400 envelopes. */
export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 400;
  sendEnvelope(
    reply,
    status,
    errorEnvelope(
      'E_INVALID_INPUT',
      { cause: error.code },
      error.code === 'FST_ERR_BAD_URL' ? 'Malformed URL' : error.message,
    ),
  );
}
