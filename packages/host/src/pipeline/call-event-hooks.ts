// The hooks that turn what the steps report (watchdog notices and progress, a server's questions,
// stored files) into call events, kept out of call-tool.ts so that file reads as the list of steps.
import { type CallAnswer, type CallEventBody, findFileInputs, type StoredFileSummary } from '@ferry/contract';
import type { ElicitationRequest, ElicitationResult } from '../connections/connection.js';
import type { CallEventSink } from '../events/call-events.js';
import type { WatchdogInput } from './call-with-watchdog.js';
import type { ElicitationBroker } from './elicitation-bridge.js';
import type { StoredOutput } from './store-outputs.js';

export type CallWithWatchdogHooks = Pick<WatchdogInput, 'onNotice' | 'onProgress'>;

/** Watchdog notices and progress as `notice` and `progress` events. */
export function eventHooks(events: CallEventSink): CallWithWatchdogHooks {
  return {
    onNotice: (notice) => events.emit({ type: 'notice', ...notice }),
    onProgress: ({ progress, total, message, percent }) =>
      events.emit({
        type: 'progress',
        progress,
        ...(total === undefined ? {} : { total }),
        ...(percent === undefined ? {} : { percent }),
        ...(message === undefined ? {} : { message }),
      }),
  };
}

/**
 * The server's questions as `elicitation` events, answered through the broker; `elicitation_answered`
 * follows with the action once the user (or the timeout, or the call's end) answered. A URL-mode
 * question carries its link and the server's name, for the user to judge before opening it; Ferry
 * itself never fetches it.
 */
export function elicitationHook(
  events: CallEventSink,
  broker: ElicitationBroker,
  owner: string,
  /** Aborted when the call ends; asked for only when a question comes (it costs to make). */
  signal: () => AbortSignal,
  server: string,
): (request: ElicitationRequest) => Promise<ElicitationResult> {
  return async (request) => {
    const asked = broker.ask(events.callId, owner, request, signal());
    events.emit(
      request.mode === 'url'
        ? {
            type: 'elicitation',
            elicitationId: asked.id,
            mode: 'url',
            server,
            message: request.message,
            url: request.url,
            requestedSchema: {},
            fileFields: [],
          }
        : {
            type: 'elicitation',
            elicitationId: asked.id,
            mode: 'form',
            server,
            message: request.message,
            requestedSchema: request.requestedSchema,
            fileFields: fileFieldsOf(request.requestedSchema),
          },
    );
    const result = await asked.result;
    events.emit({ type: 'elicitation_answered', elicitationId: asked.id, action: result.action });
    return result;
  };
}

/** A form's SEP-2356 x-mcp-file fields, as the UI lists them. */
function fileFieldsOf(schema: Record<string, unknown>) {
  return findFileInputs(schema, { surface: 'elicitation' }).inputs.map((input) => ({
    name: input.path[0] as string,
    required: input.required,
    ...(input.descriptor.accept && { accept: [...input.descriptor.accept] }),
    ...(input.descriptor.maxSize !== undefined && { maxSize: input.descriptor.maxSize }),
  }));
}

/** A stored file as the `file_stored` event and the answer list it. */
export function storedSummary({ output, record }: StoredOutput): StoredFileSummary {
  const summary: StoredFileSummary = {
    id: record.id,
    name: record.name,
    mime: record.mime,
    size: record.size,
    viewer: output.viewer,
    deferred: record.source === 'deferred',
    temporary: !record.persist,
  };
  if (record.category) summary.category = record.category;
  if (record.description) summary.description = record.description;
  return summary;
}

/** The `finished` event of a call that answered: what the UI answer says, meta_data and retryable too. */
export function finishedEvent(
  answer: CallAnswer,
  files: number,
): Extract<CallEventBody, { type: 'finished' }> {
  const { metaData, retryable } = answer.forUi;
  return {
    type: 'finished',
    isError: answer.forModel.isError,
    files,
    ...(metaData === undefined ? {} : { metaData }),
    ...(retryable === undefined ? {} : { retryable }),
  };
}
