// The spec's error objects, built in one place, and the failure an operation throws to return
// one. Messages name only paths in the user's provider view, never a host path.
import type { ProviderError, ProviderErrorType } from './provider-types.js';

/** Thrown inside an operation; runProviderTool turns it into the returned error object. */
export class ProviderFailure extends Error {
  readonly providerError: ProviderError;
  constructor(errorType: ProviderErrorType, message: string) {
    super(message);
    this.name = 'ProviderFailure';
    this.providerError = { error: message, error_type: errorType };
  }
  static of(error: ProviderError): ProviderFailure {
    return new ProviderFailure(error.error_type, error.error);
  }
}

export const notFound = (path: string, what = 'File') =>
  new ProviderFailure('FileNotFoundError', `${what} not found: ${path}`);
export const permissionDenied = (path: string, why?: string) =>
  new ProviderFailure('PermissionError', `Permission denied: ${path}${why ? ` (${why})` : ''}`);
export const notAFile = (path: string) =>
  new ProviderFailure('FileProviderError', `Path is not a file: ${path}`);
export const notADirectory = (path: string) =>
  new ProviderFailure('FileProviderError', `Path is not a directory: ${path}`);
export const tooLarge = (size: number | undefined, limit: number) =>
  new ProviderFailure(
    'FileSizeLimitExceededError',
    size === undefined ? `File size exceeds limit ${limit}` : `File size ${size} exceeds limit ${limit}`,
  );
export const providerError = (message: string) => new ProviderFailure('FileProviderError', message);

/**
 * An unexpected error as the spec's FileProviderError. Node's messages carry host paths
 * ("ENOENT: …, open '/srv/…'"), so only the error code goes out.
 */
export function unexpected(error: unknown): ProviderError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return {
    error: `Unexpected error${typeof code === 'string' ? ` (${code})` : ''}`,
    error_type: 'FileProviderError',
  };
}
