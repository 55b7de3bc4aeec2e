// Runs one provider tool call for one user: the tool is checked against the settings, the
// arguments parsed, then the operation runs under the timeout (settings.timeoutSeconds) and the
// caller's signal. Every outcome is a value: the spec's result, or its {error, error_type};
// nothing a caller sends makes this throw.
//
//   tool known and enabled?      → FileProviderError "Unknown tool …"
//   arguments                    → FileProviderError "Invalid parameters: <field>: <problem>"
//   path (provider-paths.ts)     → PermissionError (outside, refused, blocked, link out)
//   operation (provider-op-*.ts) → FileNotFoundError, FileSizeLimitExceededError, …
//   timeout / abort              → FileProviderError "<tool> timed out after N s"; streams destroyed
import {
  createOperationContext,
  type OperationContext,
  type OperationOutcome,
} from './provider-op-context.js';
import { ProviderFailure, unexpected } from './provider-op-errors.js';
import { findFiles, listDirectory } from './provider-op-list.js';
import { calculateFileHash, readFile, readFileBinary } from './provider-op-read.js';
import { fileExists, getFileStats } from './provider-op-stats.js';
import {
  isProviderToolEnabled,
  type ProviderToolArgs,
  parseProviderArgs,
} from './provider-tool-definitions.js';
import type { ProviderResult, ProviderScope, ProviderToolName } from './provider-types.js';

export interface ProviderRun {
  result: ProviderResult;
  /** The path the call named, as given (at most 512 characters), for events and audit. */
  path?: string;
  /** Bytes of file content read. */
  bytes?: number;
  /** Entries returned. */
  count?: number;
}

const MAX_REPORTED_PATH = 512;

type Operation<Name extends ProviderToolName> = (
  context: OperationContext,
  args: ProviderToolArgs[Name],
) => Promise<OperationOutcome>;

const OPERATIONS: { [Name in ProviderToolName]: Operation<Name> } = {
  read_file: readFile,
  read_file_binary: readFileBinary,
  list_directory: listDirectory,
  file_exists: fileExists,
  get_file_stats: getFileStats,
  calculate_file_hash: calculateFileHash,
  find_files: findFiles,
};

export async function runProviderTool(
  scope: ProviderScope,
  tool: string,
  args: unknown,
  signal?: AbortSignal,
): Promise<ProviderRun> {
  const path = namedPath(args);
  const fail = (error: ProviderResult & { ok: false }): ProviderRun => ({ result: error, ...path });
  if (!isProviderToolEnabled(scope.settings, tool)) {
    return fail({
      ok: false,
      error: { error: `Unknown tool: ${String(tool).slice(0, 100)}`, error_type: 'FileProviderError' },
    });
  }
  const parsed = parseProviderArgs(tool, args);
  if (!parsed.ok) {
    if (tool === 'file_exists') return { result: { ok: true, value: false }, ...path };
    return fail({ ok: false, error: { error: parsed.message, error_type: 'FileProviderError' } });
  }

  const seconds = scope.settings.timeoutSeconds;
  const timeout = AbortSignal.timeout(seconds * 1000);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const operation = OPERATIONS[tool] as Operation<typeof tool>;
  const running = (async () => operation(await createOperationContext(scope, combined), parsed.args))();
  // The operation keeps running until it notices the signal; its late failure is not an error.
  running.catch(() => undefined);
  const aborted = rejectOnAbort(combined);
  try {
    const outcome = await Promise.race([running, aborted.promise]);
    return {
      result: { ok: true, value: outcome.value },
      ...path,
      ...(outcome.bytes === undefined ? {} : { bytes: outcome.bytes }),
      ...(outcome.count === undefined ? {} : { count: outcome.count }),
    };
  } catch (error) {
    if (tool === 'file_exists') return { result: { ok: true, value: false }, ...path };
    if (combined.aborted) {
      const timedOut = timeout.aborted || (signal?.reason as Error | undefined)?.name === 'TimeoutError';
      const message = timedOut ? `${tool} timed out after ${seconds} s` : `${tool} was cancelled`;
      return fail({ ok: false, error: { error: message, error_type: 'FileProviderError' } });
    }
    if (error instanceof ProviderFailure) return fail({ ok: false, error: error.providerError });
    return fail({ ok: false, error: unexpected(error) });
  } finally {
    aborted.dispose();
  }
}

function rejectOnAbort(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let listener: () => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    listener = () => reject(signal.reason);
    if (signal.aborted) listener();
    else signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', listener) };
}

/** The path argument the call named, whatever the tool: for the audit line, never for access. */
function namedPath(args: unknown): { path?: string } {
  if (typeof args !== 'object' || args === null) return {};
  const record = args as Record<string, unknown>;
  const given = record.file_path ?? record.directory_path ?? record.path;
  return typeof given === 'string' ? { path: given.slice(0, MAX_REPORTED_PATH) } : {};
}
