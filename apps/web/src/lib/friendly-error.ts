// Error codes (contract v2.1 §12 and the API's own) → a title a person understands. The message
// and the suggestion come from the envelope itself; this only adds the headline.

const TITLES: Record<string, string> = {
  E_TIMEOUT: 'The tool took too long',
  E_INVALID_PATH: 'The tool wrote outside its folder',
  E_FILE_TOO_LARGE: 'File too large',
  E_FILE_NOT_FOUND: 'File not found',
  E_FILE_TYPE_REJECTED: 'This type of file is not accepted',
  E_SANDBOX_UNAVAILABLE: 'The sandbox is not available',
  E_QUOTA_EXCEEDED: 'Your storage is full',
  E_INVALID_INPUT: 'Something in the input is not right',
  E_TOOL_ERROR: 'The tool reported an error',
  E_CANCELLED: 'Cancelled',
  E_INTERNAL: 'Something went wrong in Ferry',
  E_UNAUTHORIZED: 'Not signed in',
  E_FORBIDDEN: 'Not allowed',
  E_NOT_FOUND: 'Not found',
  E_CONFLICT: 'Conflict',
  E_TOO_MANY_CALLS: 'Too many tool calls at once',
  E_RATE_LIMITED: 'Too many requests: wait a moment',
  E_STORAGE_FULL: 'The file store is full',
  E_STORAGE_UNAVAILABLE: 'The file store cannot be reached right now',
  E_TOOL_UNAVAILABLE: 'The tool server is not available',
};

export function errorTitle(code: string | undefined): string {
  return (code && TITLES[code]) || 'Error';
}

export interface FriendlyError {
  title: string;
  message: string;
  suggestion?: string;
  code?: string;
  retryable?: boolean;
}

/** Reads any v2.1 error envelope (or a plain `{code,message,suggestion}`) into a FriendlyError. */
export function friendlyFromEnvelope(envelope: unknown): FriendlyError | undefined {
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const e = envelope as {
    results?: { error?: unknown };
    meta_data?: { error_code?: unknown; details?: { suggestion?: unknown }; retryable?: unknown };
    code?: unknown;
    message?: unknown;
    suggestion?: unknown;
  };
  // The envelope's field first, then the plain one.
  const code = firstString(e.meta_data?.error_code, e.code);
  const message = firstString(e.results?.error, e.message);
  if (!code && !message) return undefined;
  const suggestion = firstString(e.meta_data?.details?.suggestion, e.suggestion);
  return {
    title: errorTitle(code),
    message: message ?? '',
    ...(suggestion ? { suggestion } : {}),
    ...(code ? { code } : {}),
    ...(typeof e.meta_data?.retryable === 'boolean' ? { retryable: e.meta_data.retryable } : {}),
  };
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string');
}
