// Errors that only exist at the HTTP edge (who is asking, which route, which call), next to the
// FerryError codes of @ferry/contract, which cover what the packages can fail with. Both leave
// the API in one shape, the v2.1 §12 envelope, so a client reads `meta_data.error_code` whatever
// failed. The codes here are candidates for the contract's ERROR_CODES table.
import type { ErrorEnvelope } from '@ferry/contract';

export const API_ERROR_CODES = {
  E_UNAUTHORIZED: {
    status: 401,
    reason: 'Unauthorized',
    suggestion: 'Sign in through the configured proxy, or pass a valid download token',
  },
  E_FORBIDDEN: {
    status: 403,
    reason: 'Forbidden',
    suggestion: 'Ask for a fresh download link; links are bound to one user, one file and a few minutes',
  },
  E_NOT_FOUND: { status: 404, reason: 'NotFound', suggestion: 'Check the id or path' },
  E_METHOD_NOT_ALLOWED: { status: 405, reason: 'MethodNotAllowed', suggestion: 'Check the method' },
  E_CONFLICT: { status: 409, reason: 'Conflict', suggestion: 'Reload and try again' },
  E_PAYLOAD_TOO_LARGE: {
    status: 413,
    reason: 'PayloadTooLarge',
    suggestion: 'Send a smaller request body',
  },
  E_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    reason: 'UnsupportedMediaType',
    suggestion: 'Send application/json (or, for uploads, the file bytes or multipart/form-data)',
  },
  E_TOO_MANY_CALLS: {
    status: 429,
    reason: 'TooManyRequests',
    suggestion: 'Wait for a running call to finish, or cancel one',
  },
  E_TOOL_UNAVAILABLE: {
    status: 502,
    reason: 'ToolServerUnavailable',
    suggestion: 'The MCP server did not start or answer; check its configuration and the Ferry logs',
  },
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ApiErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return API_ERROR_CODES[this.code].status;
  }

  toEnvelope(): ErrorEnvelope {
    const info = API_ERROR_CODES[this.code];
    return {
      results: { error: this.message },
      meta_data: {
        is_error: true,
        reason: info.reason,
        error_code: this.code,
        details: { ...this.details, suggestion: this.details.suggestion ?? info.suggestion },
        retryable: this.code === 'E_TOO_MANY_CALLS' || this.code === 'E_TOOL_UNAVAILABLE',
      },
    };
  }
}

export const unauthorized = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_UNAUTHORIZED', message, details);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_FORBIDDEN', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_NOT_FOUND', message, details);
