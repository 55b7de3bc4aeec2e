// Why a call failed when the cause is the connection, not the tool's own answer: the server
// process went away (stopped by the sandbox, killed, crashed), or the host refused what arrived
// (a result over maxResultBytes or nested too deep). Each becomes a FerryError with its own code
// instead of the SDK's bare "Connection closed" or a RangeError from deep inside a reader.
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { FerryError, formatLimitBytes, MAX_RESULT_DEPTH, tooDeepReason } from '@ferry/contract';
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { JsonRpcId } from './json-lines.js';
import type { ProcessExit } from './process-stdio-transport.js';

// A sandbox wrapper that stops a server for a reason of its own (the workspace quota) says why in
// one stderr line, `[ferry/sandbox] E_QUOTA_EXCEEDED: <message>` (packages/sandbox/src/
// sandbox-wrapper.ts). When the connection then drops in the middle of a call, that reason, not
// the SDK's "Connection closed", is the call's failure. Only codes a launcher may raise are
// believed: a tool cannot turn its own crash into another error by printing such a line, since
// the server's stderr is only consulted after the process is gone, and the worst it can do is
// name one of these.
const FAILURE_LINE = /^\[ferry\/sandbox\] (E_QUOTA_EXCEEDED|E_SANDBOX_UNAVAILABLE): (.+)$/gm;
const QUOTA_NUMBERS = /holds (\d+) KiB, over its quota of (\d+) KiB/;

export function launcherFailure(stderr: string | undefined, server: string): FerryError | undefined {
  if (!stderr) return undefined;
  const last = [...stderr.matchAll(FAILURE_LINE)].at(-1);
  if (last === undefined) return undefined;
  const [, code, message] = last as unknown as [string, 'E_QUOTA_EXCEEDED' | 'E_SANDBOX_UNAVAILABLE', string];
  const numbers = code === 'E_QUOTA_EXCEEDED' ? QUOTA_NUMBERS.exec(message) : null;
  return new FerryError(code, `MCP server "${server}" was stopped: ${message}`, {
    server,
    ...(code === 'E_QUOTA_EXCEEDED' && { scope: 'workspace' }),
    ...(numbers && { used_bytes: Number(numbers[1]) * 1024, limit_bytes: Number(numbers[2]) * 1024 }),
  });
}

const ERROR_LINE = /^[\w$.]*(?:Error|Exception)\b[^:]*:|^(?:error|fatal|panic)\b/i;
/** Stack frames and the noise around them (Node's and Python's). */
const TRACE_LINE =
  /^(?:at |File "|\^+$|Node\.js v\d|[{}[\]]$|Traceback \(|node:internal\/|triggerUncaughtException|\w+: .*,$)/;
const MAX_REASON_CHARS = 300;

/**
 * The one stderr line that says why a server failed to start, for its one-line error: the last
 * line naming an error (Node's `Error [ERR_MODULE_NOT_FOUND]: …`, Python's `ModuleNotFoundError:
 * …`), else the last one that is not part of a stack trace. The whole stderr is in the log
 * already, line by line (the pool's stderr log), so the error need not carry the trace again.
 */
export function stderrReason(stderr: string | undefined): string | undefined {
  const lines = (stderr ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  let fallback: string | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    if (ERROR_LINE.test(line)) return clip(line);
    if (fallback === undefined && !TRACE_LINE.test(line)) fallback = line;
  }
  return fallback === undefined ? undefined : clip(fallback);
}

function clip(line: string): string {
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS)}…` : line;
}

/**
 * Why a call failed when its connection closed under it: the sandbox's own reason (its last
 * stderr line; the stream closes after the process has exited, so that line is in by now), else
 * who stopped the connection (`stoppedBy`: another call's timeout, the pool closing), else how
 * the process ended. Undefined for an error that is not about the connection being gone.
 */
export function closedFailure(
  server: string,
  error: unknown,
  how: { stderr: string | undefined; stoppedBy: string | undefined; exit: ProcessExit | undefined },
): FerryError | undefined {
  const launcher = launcherFailure(how.stderr, server);
  if (launcher !== undefined) return launcher;
  if (!isClosedError(error)) return undefined;
  return how.stoppedBy === undefined ? exitFailure(server, how.exit) : stoppedFailure(server, how.stoppedBy);
}

/**
 * A local server that exited while a call was waiting for it. Retryable: the pool starts a fresh
 * process on the next call. A sandboxed server runs under a shell, which reports a signal as
 * status 128 + n; the signal is named beside such a code.
 */
export function exitFailure(server: string, exit: ProcessExit | undefined): FerryError {
  const how =
    exit === undefined
      ? 'closed its connection'
      : exit.signal !== null
        ? `exited (signal ${exit.signal})`
        : `exited with code ${exit.code}${shellSignal(exit.code)}`;
  return new FerryError('E_TOOL_UNAVAILABLE', `MCP server "${server}" ${how} during the call`, {
    server,
    ...(exit !== undefined && { exit_code: exit.code, signal: exit.signal }),
  });
}

/** The connection closed under a running call because Ferry stopped it (another call's timeout…). */
function stoppedFailure(server: string, why: string): FerryError {
  return new FerryError('E_TOOL_UNAVAILABLE', `MCP server "${server}" was stopped (${why}) during the call`, {
    server,
  });
}

function shellSignal(code: number | null): string {
  if (code === null || code <= 128) return '';
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return name === undefined ? '' : ` (128 + ${name})`;
}

export function resultTooLargeError(limitBytes: number, bytes?: number): FerryError {
  const limit = formatLimitBytes(limitBytes);
  return new FerryError(
    'E_RESULT_TOO_LARGE',
    `The tool's result is over the ${limit} limit (maxResultBytes); Ferry did not read it`,
    { limit, limit_bytes: limitBytes, ...(bytes !== undefined && { result_bytes: bytes }) },
  );
}

export function resultTooDeepError(maxDepth: number = MAX_RESULT_DEPTH): FerryError {
  return new FerryError('E_TOOL_ERROR', `Unreadable tool result: ${tooDeepReason(maxDepth)}`, {
    max_depth: maxDepth,
  });
}

// A request whose answer the host refused is failed with a JSON-RPC error response made here and
// handed to the SDK's client as if it had arrived, so only that call fails and the connection
// goes on. Its data carries a random mark no server ever sees, so a server cannot make its own
// error responses pass for one of these.
const INTAKE_MARK = randomUUID();

export function intakeErrorResponse(id: JsonRpcId, error: FerryError): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: error.message,
      data: { ferry_intake: INTAKE_MARK, code: error.code, message: error.message, details: error.details },
    },
  };
}

/** The FerryError behind a refused answer (as the SDK rejected the call with it), if it is one. */
export function intakeFailure(error: unknown): FerryError | undefined {
  if (error instanceof FerryError) return error;
  if (typeof error !== 'object' || error === null) return undefined;
  const data = (error as { data?: unknown }).data as
    | {
        ferry_intake?: unknown;
        code?: FerryError['code'];
        message?: string;
        details?: Record<string, unknown>;
      }
    | undefined;
  if (data?.ferry_intake === INTAKE_MARK && data.code !== undefined) {
    return new FerryError(data.code, data.message, data.details);
  }
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof FerryError ? cause : undefined;
}

/** Writes to a process that is gone fail with these, before the SDK learns the connection closed. */
const WRITE_ERRORS: readonly unknown[] = [
  'EPIPE',
  'ECONNRESET',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
];

/** The connection closed under the call: the SDK says so, or writing the request to the process failed. */
function isClosedError(error: unknown): boolean {
  if (SdkError.isInstance(error)) {
    return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected;
  }
  return error instanceof Error && WRITE_ERRORS.includes((error as NodeJS.ErrnoException).code);
}
