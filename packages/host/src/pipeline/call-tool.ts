// One tool call, start to end (DESIGN "The tool-call pipeline"). Each step is its own module:
//
//   step                  module                   fails with
//   1 resolveConventions  resolve-conventions.ts   E_INVALID_INPUT (unknown tool)
//   2 prepareArguments    prepare-arguments.ts     E_FILE_NOT_FOUND, E_FILE_TYPE_REJECTED,
//                                                  E_FILE_TOO_LARGE, E_INVALID_INPUT (before the call)
//   3 callWithWatchdog    call-with-watchdog.ts    E_TIMEOUT (idle or hard cap), E_CANCELLED,
//                                                  E_TOOL_UNAVAILABLE (the server exited or was
//                                                  stopped), E_RESULT_TOO_LARGE (over
//                                                  maxResultBytes), E_TOOL_ERROR (protocol failure,
//                                                  a result nested too deep)
//   4 collectOutputs      collect-outputs.ts       E_TOOL_ERROR (unreadable or too deep); per file:
//                                                  E_INVALID_PATH, E_FILE_TOO_LARGE, E_INVALID_INPUT,
//                                                  E_FILE_NOT_FOUND (rejected, the call goes on)
//   5 storeOutputs        store-outputs.ts         per file: E_FILE_TOO_LARGE, E_QUOTA_EXCEEDED (rejected)
//     storeLargeResult    store-large-result.ts    - (a result too large for the model is a file too;
//                                                  if it cannot be stored, the model gets its beginning)
//   6 answer              answer.ts                -
//
// Events: started → arguments_prepared → progress/notice… → file_stored… → finished, or failed /
// cancelled at the step that stopped. A failure anything else throws becomes E_INTERNAL (or the
// FerryError's own code); callTool itself only rejects on programmer errors in its deps.
import { randomUUID } from 'node:crypto';
import {
  type CallAnswer,
  type CallEvent,
  type CallEventBody,
  DEFAULT_MODEL_RESULT_CHARS,
  type ErrorEnvelope,
  errorEnvelope,
  FerryError,
  type ToolCallResponse,
} from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { ConnectionPool } from '../connections/connection.js';
import { createCallEventSink } from '../events/call-events.js';
import type { DetectionWindow } from '../workspace/detection-window.js';
import type { Workspace, Workspaces } from '../workspace/workspaces.js';
import { answer, answerFromError } from './answer.js';
import {
  type CallWithWatchdogHooks,
  elicitationHook,
  eventHooks,
  finishedEvent,
  storedSummary,
} from './call-event-hooks.js';
import { callWithWatchdog, type WatchdogTimeouts } from './call-with-watchdog.js';
import { withCanvasToken } from './canvas-policy.js';
import { type Clock, systemClock } from './clock.js';
import { type CollectedFile, collectOutputs } from './collect-outputs.js';
import type { ElicitationBroker } from './elicitation-bridge.js';
import { keepsMcpResult, mcpResultFields } from './mcp-result.js';
import { type FileMode, prepareArguments } from './prepare-arguments.js';
import { redactionFor } from './redact-for-model.js';
import { findTool, resolveConventions } from './resolve-conventions.js';
import { storeLargeResult } from './store-large-result.js';
import { storeOutputs } from './store-outputs.js';

export interface ToolCallRequest {
  /** Given by the API so it can subscribe before the call starts. @default a random UUID */
  callId?: string;
  user: { /** FileStore owner id. */ owner: string; username: string };
  sessionId?: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** x-mcp-file arguments: My Files ids the user picked. */
  fileInputs?: Record<string, string | string[]>;
  /** The user's cancel button. */
  signal?: AbortSignal;
}

export interface ServerSettings {
  fileMode: FileMode;
  timeouts: WatchdogTimeouts;
  /**
   * Look for files a local server wrote without listing them (a change tracker per workspace:
   * a fraction of a millisecond per call; a walk on the user's first call or when watching
   * fails). Remote servers never get it.
   * @default true
   */
  detectWorkspaceFiles?: boolean;
  /** Origins this server's canvas envelopes may be framed from (canvasOriginsOf). @default none */
  canvasOrigins?: readonly string[];
  /** x-mcp-file data URIs carry `name=` (the server's `xMcpFileNameParam`). @default false */
  xMcpFileNameParam?: boolean;
}

export interface ToolCallDeps {
  pool: ConnectionPool;
  files: FileStore;
  workspaces: Workspaces;
  serverSettings(server: string): ServerSettings;
  /** The URL a tool fetches a file from, e.g. `<base>/api/files/<id>/content?token=<token>`. */
  downloadUrl(fileId: string, token: string): string;
  clock?: Clock;
  emit(event: CallEvent): void;
  /** Bridges the server's elicitations to the user; absent: they are answered `cancel`. */
  elicitations?: ElicitationBroker;
  /**
   * Longest answer text the model is given; a larger result is stored in My Files and the model
   * gets its beginning and the file's name. @default DEFAULT_MODEL_RESULT_CHARS (16,000)
   */
  maxModelResultChars?: number;
  /**
   * Told when the call starts, with a way to add events to its stream (the file provider's
   * callbacks of this user and server); the returned function runs when it ends, before
   * anything else could be added after its last event.
   */
  track?(call: { username: string; server: string; emit(body: CallEventBody): void }): () => void;
}

/**
 * Why callEnded aborts. Made once: a bare abort() builds a DOMException with a stack trace on
 * every call, which showed up in the call-overhead profile.
 */
const CALL_ENDED = Object.freeze(new Error('[ferry/host] the call ended'));

export async function callTool(request: ToolCallRequest, deps: ToolCallDeps): Promise<ToolCallResponse> {
  const clock = deps.clock ?? systemClock;
  const callId = request.callId ?? randomUUID();
  const events = createCallEventSink({ callId, emit: deps.emit, now: () => clock.now() });
  const { user } = request;
  let transcript: Record<string, unknown> | undefined;
  let redaction = redactionFor(undefined, []);
  const opened: CollectedFile[] = [];
  let workspace: Promise<Workspace> | undefined;
  // Made only when a server asks a question: an AbortSignal costs ~7 µs to make and ~8 µs more to
  // abort (Node 20), on every call, and most calls never ask. A signal first asked for after the
  // call ended is born aborted.
  let callEnded: AbortController | undefined;
  let ended = false;
  const callEndedSignal = () => {
    if (callEnded === undefined) {
      callEnded = new AbortController();
      if (ended) callEnded.abort(CALL_ENDED);
    }
    return callEnded.signal;
  };
  const endCall = () => {
    ended = true;
    callEnded?.abort(CALL_ENDED);
  };
  request.signal?.addEventListener('abort', endCall, { once: true });
  let detection: DetectionWindow | undefined;
  const getWorkspace = () => {
    workspace ??= deps.workspaces.forUser(user.username);
    return workspace;
  };

  // Tracking ends before the terminal event: nothing may follow finished, failed or cancelled.
  let untrack: (() => void) | undefined;
  const endTracking = () => {
    untrack?.();
    untrack = undefined;
  };
  const respond = (status: ToolCallResponse['status'], result: CallAnswer): ToolCallResponse => ({
    callId,
    status,
    ...(transcript ? { transcript } : {}),
    ...result,
  });
  const fail = (error: ErrorEnvelope, warnings: string[] = []) => {
    endTracking();
    const meta = error.meta_data;
    events.emit({
      type: 'failed',
      code: meta.error_code,
      message: error.results.error,
      retryable: meta.retryable,
    });
    return respond('failed', answerFromError(error, { warnings, redaction }));
  };
  const cancelled = (reason: string) => {
    endTracking();
    events.emit({ type: 'cancelled', reason });
    return respond('cancelled', answerFromError(errorEnvelope('E_CANCELLED', { reason }), { redaction }));
  };

  events.emit({ type: 'started', server: request.server, tool: request.tool });
  untrack = deps.track?.({ username: user.username, server: request.server, emit: events.emit });
  // The user's flags (a catalog read) and workspace (a directory check on disk) do not depend on
  // the tool: both start now and overlap with finding it, instead of adding their waits one after
  // the other. They are awaited in the steps' order, so a call fails as it did before, and a
  // failure of one that is never awaited is not an unhandled rejection.
  const flagsRead = deps.files.flags(user.owner);
  flagsRead.catch(() => undefined);
  getWorkspace().catch(() => undefined);
  try {
    // 1. The tool and its conventions.
    const connection = await deps.pool.get(request.server, user.username);
    const tools = await connection.listTools();
    const tool = findTool(tools, request.tool);
    if (!tool) {
      return fail(
        errorEnvelope('E_INVALID_INPUT', { field: 'tool' }, `Unknown tool ${request.server}/${request.tool}`),
      );
    }
    const conventions = resolveConventions(tool.inputSchema);

    // 2. Arguments.
    const settings = deps.serverSettings(request.server);
    const flags = await flagsRead;
    const prepared = await prepareArguments({
      conventions,
      arguments: request.arguments,
      fileInputs: request.fileInputs,
      user,
      fileMode: settings.fileMode,
      files: deps.files,
      workspace: getWorkspace,
      downloadUrl: deps.downloadUrl,
      base64LimitBytes: flags.base64_size_limit_bytes,
      xMcpFileNameParam: settings.xMcpFileNameParam === true,
      signal: request.signal,
    });
    if (!prepared.ok) return fail(prepared.error, prepared.warnings);
    transcript = prepared.transcript;
    const ws = await getWorkspace();
    redaction = redactionFor(ws, prepared.handedOver);
    events.emit({
      type: 'arguments_prepared',
      transcript,
      handedOver: prepared.handedOver.map(({ argument, index, fileId, name, mode }) =>
        index === undefined ? { argument, fileId, name, mode } : { argument, index, fileId, name, mode },
      ),
      dropped: prepared.dropped,
    });
    // Only a local server writes into the workspace; a remote one cannot, so nothing to detect.
    const detect = connection.kind === 'local' && settings.detectWorkspaceFiles !== false;
    if (detect) detection = await ws.startDetection();

    // 3. The call.
    const hooks: CallWithWatchdogHooks = eventHooks(events);
    const asking = deps.elicitations
      ? {
          onElicitation: elicitationHook(
            events,
            deps.elicitations,
            user.owner,
            callEndedSignal,
            connection.server,
          ),
        }
      : {};
    const call = await callWithWatchdog({
      connection,
      tool: request.tool,
      arguments: prepared.arguments,
      timeouts: settings.timeouts,
      clock,
      signal: request.signal,
      ...hooks,
      ...asking,
    });
    if (call.kind === 'cancelled') return cancelled(call.reason);
    if (call.kind !== 'result') return fail(call.error, prepared.warnings);

    // 4. Outputs.
    const collected = await collectOutputs({
      result: call.result,
      workspace: ws,
      detection,
      maxFileBytes: flags.max_file_size_bytes,
      deferredExpiresHours: flags.deferred_expires_hours,
    });
    if (!collected.ok) return fail(collected.error, prepared.warnings);
    opened.push(...collected.files);
    // The canvas token is the frame's alone: echoed anywhere the model reads, it is redacted.
    redaction = withCanvasToken(redaction, collected.outcome.canvas);

    // 5. My Files.
    const stored = await storeOutputs({
      files: deps.files,
      owner: user.owner,
      sessionId: request.sessionId,
      outputs: collected.files,
      display: collected.outcome.display,
      signal: request.signal,
      readResource: (uri) => connection.readResource(uri, request.signal ? { signal: request.signal } : {}),
      onStored: (file) => events.emit({ type: 'file_stored', file: storedSummary(file) }),
    });
    // A result too large for the model goes to My Files too; the model gets its beginning.
    const modelResults = await storeLargeResult({
      outcome: collected.outcome,
      redaction,
      tool: request.tool,
      callId,
      maxChars: deps.maxModelResultChars ?? DEFAULT_MODEL_RESULT_CHARS,
      stored: stored.stored,
      store: {
        files: deps.files,
        owner: user.owner,
        sessionId: request.sessionId,
        display: collected.outcome.display,
        signal: request.signal,
        onStored: (file) => events.emit({ type: 'file_stored', file: storedSummary(file) }),
      },
    });
    const allStored = modelResults.stored ? [...stored.stored, modelResults.stored] : stored.stored;

    // 6. The answer.
    const result = answer({
      outcome: collected.outcome,
      stored: allStored,
      rejected: [...collected.rejected, ...stored.rejected],
      unstored: stored.unstored,
      warnings: [...prepared.warnings, ...collected.warnings, ...modelResults.warnings],
      redaction,
      modelResults: modelResults.results,
      canvas: { server: request.server, origins: settings.canvasOrigins ?? [] },
      now: clock.now(),
    });
    endTracking();
    events.emit(finishedEvent(result, allStored.length));
    // An MCP Apps tool's view gets the result as the server sent it (mcp-result.ts).
    return { ...respond('finished', result), ...mcpResultFields(keepsMcpResult(tool, tools), call.result) };
  } catch (error) {
    if (request.signal?.aborted) return cancelled('cancelled by the user');
    if (error instanceof FerryError) return fail(error.toEnvelope());
    // The cause goes to the UI envelope's details only: it may name host paths.
    return fail(
      errorEnvelope('E_INTERNAL', { cause: error instanceof Error ? error.message : String(error) }),
    );
  } finally {
    endTracking();
    // Open questions of a call that ended are answered `cancel`.
    request.signal?.removeEventListener('abort', endCall);
    endCall();
    // A call that failed or was cancelled never finished its window: stop recording for it.
    detection?.dispose();
    await Promise.all(opened.map((file) => file.opened?.close().catch(() => undefined)));
  }
}
