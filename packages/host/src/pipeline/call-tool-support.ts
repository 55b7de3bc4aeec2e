// Small adapters between the pipeline's steps and its event stream, kept out of call-tool.ts so
// that file reads as the list of steps.
import type { CallEventSink, StoredFileSummary } from '../events/call-events.js';
import type { Workspace } from '../workspace/workspaces.js';
import type { WatchdogInput } from './call-with-watchdog.js';
import type { HandedOver } from './prepare-arguments.js';
import type { Redaction } from './redact-for-model.js';
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

/** Handed-over paths and URLs map back to file names; both views of the workspace are hidden. */
export function redactionFor(workspace: Workspace | undefined, handedOver: HandedOver[]): Redaction {
  const references = new Map<string, string>();
  for (const entry of handedOver) if (entry.reference) references.set(entry.reference, entry.name);
  const workspaceDirs = workspace ? [...new Set([workspace.hostDir, workspace.toolDir])] : [];
  return { references, workspaceDirs };
}

export function storedSummary({ output, record, temporary }: StoredOutput): StoredFileSummary {
  const summary: StoredFileSummary = {
    id: record.id,
    name: record.name,
    mime: record.mime,
    size: record.size,
    viewer: output.viewer,
    deferred: record.source === 'deferred',
    temporary,
  };
  if (record.category) summary.category = record.category;
  if (record.description) summary.description = record.description;
  return summary;
}
