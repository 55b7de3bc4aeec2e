// Errors that only happen at the HTTP edge (who is asking, which route, which call). Their codes
// live in the contract's ERROR_CODES table with every other code, so the API answers with one
// envelope shape and one table of statuses; ApiError only narrows FerryError to these codes.
import { FerryError } from '@ferry/contract';

export type ApiErrorCode =
  | 'E_UNAUTHORIZED'
  | 'E_FORBIDDEN'
  | 'E_NOT_FOUND'
  | 'E_METHOD_NOT_ALLOWED'
  | 'E_CONFLICT'
  | 'E_PAYLOAD_TOO_LARGE'
  | 'E_UNSUPPORTED_MEDIA_TYPE'
  | 'E_TOO_MANY_CALLS'
  | 'E_TOOL_UNAVAILABLE'
  | 'E_SHUTTING_DOWN';

export class ApiError extends FerryError {
  declare readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}

export const unauthorized = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_UNAUTHORIZED', message, details);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_FORBIDDEN', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new ApiError('E_NOT_FOUND', message, details);
