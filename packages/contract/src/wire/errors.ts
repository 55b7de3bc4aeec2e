// Every error code Ferry uses, listed once with its HTTP status, the spec's `reason`, the message
// that goes into `results.error`, whether it is retryable and the suggestion shown to users.
// FerryError is internal; the v2.1 §12 envelope (`toErrorEnvelope`) is what crosses to a model, a
// tool or an API client, built at one edge each (its shape: error-envelope.ts).

import type { ErrorEnvelope } from './error-envelope.js';

export const ERROR_CODES = {
  E_TIMEOUT: {
    status: 504,
    reason: 'ExecutionTimeout',
    message: 'Tool execution timed out after {timeout_seconds} seconds',
    retryable: true,
    suggestion: 'Consider breaking large operations into smaller chunks or using progress reporting',
  },
  E_INVALID_PATH: {
    status: 403,
    reason: 'SecurityViolation',
    message: 'File operation outside allowed directory',
    retryable: false,
    suggestion: 'Use /tmp/{username}/ prefix for file operations',
  },
  E_FILE_TOO_LARGE: {
    status: 413,
    reason: 'FileSizeExceeded',
    message: 'Generated file exceeds processing limits',
    retryable: false,
    suggestion: 'Consider generating summary or using chunked processing',
  },
  E_FILE_NOT_FOUND: {
    status: 404,
    reason: 'FileNotFound',
    message: 'File not found',
    retryable: false,
    suggestion: 'Check the file name against the list of available files',
  },
  E_FILE_TYPE_REJECTED: {
    status: 415,
    reason: 'FileTypeRejected',
    message: 'File type not accepted',
    retryable: false,
    suggestion: 'Choose a file of one of the accepted types',
  },
  E_SANDBOX_UNAVAILABLE: {
    status: 503,
    reason: 'SandboxUnavailable',
    message: 'The sandbox required to run this tool is not available',
    retryable: false,
    suggestion:
      'Install bubblewrap and allow unprivileged user namespaces, or set sandbox to "auto" for local use',
  },
  E_QUOTA_EXCEEDED: {
    status: 507,
    reason: 'QuotaExceeded',
    message: 'Storage quota exceeded',
    retryable: false,
    suggestion: 'Delete files you no longer need from My Files',
  },
  E_RANGE_NOT_SATISFIABLE: {
    status: 416,
    reason: 'RangeNotSatisfiable',
    message: 'Requested range not satisfiable',
    retryable: false,
    suggestion: 'Ask for a byte range inside the file',
  },
  E_INVALID_INPUT: {
    status: 400,
    reason: 'InvalidInput',
    message: 'Invalid input',
    retryable: false,
    suggestion: 'Correct the named field and try again',
  },
  E_TOOL_ERROR: {
    status: 502,
    reason: 'ToolError',
    message: 'The tool reported an error',
    retryable: false,
    suggestion: 'Read the error message from the tool',
  },
  E_RESULT_TOO_LARGE: {
    status: 502,
    reason: 'ResultTooLarge',
    message: "The tool's result is over the {limit} limit (maxResultBytes)",
    retryable: false,
    suggestion:
      'Have the tool write large output to a file in its workspace and return it as an artifact with a path, or raise maxResultBytes',
  },
  E_CANCELLED: {
    status: 499,
    reason: 'Cancelled',
    message: 'The call was cancelled',
    retryable: true,
    suggestion: 'Run the tool again when ready',
  },
  E_INTERNAL: {
    status: 500,
    reason: 'InternalError',
    message: 'Internal error',
    retryable: true,
    suggestion: 'Try again; if it persists, check the Ferry logs',
  },
  // What only the HTTP edge fails with: who is asking, which route, which call.
  E_UNAUTHORIZED: {
    status: 401,
    reason: 'Unauthorized',
    message: 'Not signed in',
    retryable: false,
    suggestion: 'Sign in through the configured proxy, or pass a valid download token',
  },
  E_FORBIDDEN: {
    status: 403,
    reason: 'Forbidden',
    message: 'Not allowed',
    retryable: false,
    suggestion: 'Ask for a fresh download link; links are bound to one user, one file and a few minutes',
  },
  E_NOT_FOUND: {
    status: 404,
    reason: 'NotFound',
    message: 'Not found',
    retryable: false,
    suggestion: 'Check the id or path',
  },
  E_METHOD_NOT_ALLOWED: {
    status: 405,
    reason: 'MethodNotAllowed',
    message: 'Method not allowed',
    retryable: false,
    suggestion: 'Check the method',
  },
  E_CONFLICT: {
    status: 409,
    reason: 'Conflict',
    message: 'Conflicts with the current state',
    retryable: false,
    suggestion: 'Reload and try again',
  },
  E_PAYLOAD_TOO_LARGE: {
    status: 413,
    reason: 'PayloadTooLarge',
    message: 'Request body too large',
    retryable: false,
    suggestion: 'Send a smaller request body',
  },
  E_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    reason: 'UnsupportedMediaType',
    message: 'Unsupported content type',
    retryable: false,
    suggestion: 'Send application/json (or, for uploads, the file bytes or multipart/form-data)',
  },
  E_TOO_MANY_CALLS: {
    status: 429,
    reason: 'TooManyRequests',
    message: 'Too many calls are running',
    retryable: true,
    suggestion: 'Wait for a running call to finish, or cancel one',
  },
  E_RATE_LIMITED: {
    status: 429,
    reason: 'RateLimited',
    message: 'Too many requests',
    retryable: true,
    suggestion: 'Wait until the time in Retry-After (details.retry_after_seconds) has passed, then try again',
  },
  E_STORAGE_FULL: {
    status: 507,
    reason: 'InsufficientStorage',
    message: 'The file store is full',
    retryable: false,
    suggestion: 'Delete files you no longer need, or ask the operator to give the file store more space',
  },
  E_STORAGE_UNAVAILABLE: {
    status: 503,
    reason: 'StorageUnavailable',
    message: 'The file store cannot be reached',
    retryable: true,
    suggestion: 'Try again in a moment; if it persists, the operator should check the blob store',
  },
  E_TOOL_UNAVAILABLE: {
    status: 502,
    reason: 'ToolServerUnavailable',
    message: 'The MCP server is unavailable',
    retryable: true,
    suggestion: 'The MCP server did not start or answer; check its configuration and the Ferry logs',
  },
  E_AUTH_REQUIRED: {
    status: 403,
    reason: 'AuthorizationRequired',
    message: 'The MCP server needs you to connect your account first',
    retryable: true,
    suggestion: 'Open the connect link (details.connectUrl), sign in and approve, then run the tool again',
  },
  E_MODEL_NOT_CONFIGURED: {
    status: 503,
    reason: 'ModelNotConfigured',
    message: 'No language model is configured',
    retryable: false,
    suggestion:
      'Set FERRY_LLM_BASE_URL, FERRY_LLM_MODEL (and FERRY_LLM_API_KEY if the endpoint needs one) and restart Ferry; the tool runner works without a model',
  },
  E_CHAT_UNAVAILABLE: {
    status: 503,
    reason: 'ChatUnavailable',
    message: 'Conversations are not available on this server',
    retryable: false,
    suggestion: 'Start Ferry with its storage (ferry start); the conversation store opens with the catalog',
  },
  E_SHUTTING_DOWN: {
    status: 503,
    reason: 'ShuttingDown',
    message: 'This Ferry instance is shutting down',
    retryable: true,
    suggestion:
      'Retry in a moment: behind a load balancer another instance takes it; alone, this one after its restart',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export interface ErrorCodeInfo {
  /** HTTP status the API answers with. */
  status: number;
  /** `meta_data.reason` of the envelope. */
  reason: string;
  /** `results.error` of the envelope; `{field}` placeholders are filled from details. */
  message: string;
  retryable: boolean;
  suggestion: string;
}

export type FerryErrorCode = keyof typeof ERROR_CODES;

export function isFerryErrorCode(value: unknown): value is FerryErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** Internal error with a code from {@link ERROR_CODES}; `details` become the envelope's details. */
export class FerryError extends Error {
  override readonly name = 'FerryError';
  readonly code: FerryErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: FerryErrorCode, message?: string, details: Record<string, unknown> = {}) {
    super(message ?? fillTemplate(ERROR_CODES[code].message, details));
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toEnvelope(): ErrorEnvelope {
    return errorEnvelope(this.code, this.details, this.message);
  }
}

function fillTemplate(template: string, details: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    details[key] === undefined ? whole : String(details[key]),
  );
}

/**
 * Builds the envelope for `code`. `details.suggestion` defaults to the code's suggestion; the
 * message defaults to the code's message with `{field}` placeholders filled from `details`.
 */
export function errorEnvelope(
  code: FerryErrorCode,
  details: Record<string, unknown> = {},
  message?: string,
): ErrorEnvelope {
  const info: ErrorCodeInfo = ERROR_CODES[code];
  return {
    results: { error: message ?? fillTemplate(info.message, details) },
    meta_data: {
      is_error: true,
      reason: info.reason,
      error_code: code,
      details: { ...details, suggestion: details.suggestion ?? info.suggestion },
      retryable: info.retryable,
    },
  };
}

/** v2.1 §12.1. */
export function timeoutError(args: { timeoutSeconds: number; lastProgress?: string | null }): ErrorEnvelope {
  return errorEnvelope('E_TIMEOUT', {
    timeout_seconds: args.timeoutSeconds,
    last_progress: args.lastProgress ?? null,
  });
}

/** v2.1 §12.2. */
export function invalidPathError(args: { attemptedPath: string; allowedPrefix: string }): ErrorEnvelope {
  return errorEnvelope('E_INVALID_PATH', {
    attempted_path: args.attemptedPath,
    allowed_prefix: args.allowedPrefix,
  });
}

/** v2.1 §12.3. */
export function fileTooLargeError(args: {
  fileSizeBytes: number;
  currentLimitBytes: number;
  message?: string;
}): ErrorEnvelope {
  return errorEnvelope(
    'E_FILE_TOO_LARGE',
    { file_size_bytes: args.fileSizeBytes, current_limit_bytes: args.currentLimitBytes },
    args.message,
  );
}

export function fileNotFoundError(args: { name: string }): ErrorEnvelope {
  return errorEnvelope('E_FILE_NOT_FOUND', { name: args.name }, `File not found: ${args.name}`);
}

export function fileTypeRejectedError(args: {
  name: string;
  mime: string;
  accept: readonly string[];
}): ErrorEnvelope {
  return errorEnvelope(
    'E_FILE_TYPE_REJECTED',
    { name: args.name, mime: args.mime, accept: [...args.accept] },
    `File type not accepted: ${args.name} (${args.mime}); accepted: ${args.accept.join(', ')}`,
  );
}

export function sandboxUnavailableError(args: { server: string; cause: string }): ErrorEnvelope {
  return errorEnvelope('E_SANDBOX_UNAVAILABLE', { server: args.server, cause: args.cause });
}
