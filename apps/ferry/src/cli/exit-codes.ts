// Exit codes of the `ferry` command, so scripts can tell a failed tool from a stopped server.
export const EXIT = {
  ok: 0,
  /** The tool call failed, or the tool reported an error. */
  toolFailed: 1,
  /** Bad command line (unknown option, missing file, unknown tool). */
  usage: 2,
  /** Ferry is not reachable at --url. */
  unreachable: 3,
  /** Ferry refused the request (4xx: not found, too large, not signed in…). */
  refused: 4,
  /** Ferry failed (5xx). */
  server: 5,
  /** `ferry admin fsck` found rows and blobs that disagree and did not (or could not) repair them. */
  inconsistent: 6,
  /** Interrupted (Ctrl-C); a running call was cancelled. */
  interrupted: 130,
} as const;

/** What Ferry's error envelope said, so a caller can act on it (re-ask the field it names). */
export interface ApiErrorInfo {
  status: number;
  code?: string;
  details?: Record<string, unknown>;
}

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number,
    readonly api?: ApiErrorInfo,
  ) {
    super(message);
  }
}
