// A running or settled call: status, a live progress bar (determinate when the tool reports a
// total), its messages, the 15/20/25 s notices in order, cancel, and once settled the outcome.
import type { UiFile } from '@ferry/contract';
import { type Ref, useEffect, useState } from 'react';
import { CallNotices, CallProgress } from '../components/call-progress';
import { formatDuration } from '../lib/format';
import { errorTitle } from '../lib/friendly-error';
import { AUTH_REQUIRED, oauthStartPath } from '../servers/auth-required';
import { ConnectPrompt } from '../servers/connect-prompt';
import type { CallState } from '../state/use-tool-call';
import { errorOf, FriendlyErrorBox, ResultView } from './result-view';

const STATUS_TEXT: Record<CallState['status'], string> = {
  starting: 'Starting…',
  running: 'Running…',
  finished: 'Finished',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

function useElapsed(call: CallState): number {
  const [now, setNow] = useState(Date.now());
  const running = call.status === 'running' || call.status === 'starting';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return Math.max(0, (now - call.startedAt) / 1000);
}

export function CallView({
  call,
  onCancel,
  onOpen,
  onRetry,
  sectionRef,
}: {
  call: CallState;
  onCancel(): void;
  onOpen(file: UiFile): void;
  /** Runs the same call again; the result view offers it on retryable failures. */
  onRetry?(): void;
  /** The section, focusable from script: Run moves focus here (its Run button is disabled). */
  sectionRef?: Ref<HTMLElement>;
}) {
  const running = call.status === 'running' || call.status === 'starting';
  const elapsed = useElapsed(call);
  // A call can finish and still be the tool's error envelope: say so, in red.
  const toolError =
    call.status === 'finished' && call.response !== null && errorOf(call.response) !== undefined;
  const shown = toolError ? 'failed' : call.status;
  return (
    <section
      ref={sectionRef}
      tabIndex={-1}
      className={`call-view ${shown}`}
      aria-label="Tool call"
      data-testid="call-view"
      data-status={call.status}
    >
      <header className="call-head">
        <h3>
          {call.server} › {call.tool}
        </h3>
        <span className={`call-status ${shown}`} role="status" data-testid="call-status">
          {toolError ? 'Finished with an error' : STATUS_TEXT[call.status]}
          {running && ` · ${formatDuration(elapsed)}`}
        </span>
        {running && (
          <button
            type="button"
            className="danger"
            onClick={onCancel}
            disabled={call.cancelling || !call.callId}
          >
            {call.cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </header>
      {running && <CallProgress progress={call.progress} />}
      <CallNotices notices={call.notices} />
      {call.failure && !call.response && (
        <FriendlyErrorBox
          error={{
            title: errorTitle(call.failure.code),
            message: call.failure.message,
            code: call.failure.code,
            ...(call.failure.suggestion ? { suggestion: call.failure.suggestion } : {}),
          }}
        />
      )}
      {call.failure?.code === AUTH_REQUIRED && !call.response && (
        <ConnectPrompt server={call.server} connectUrl={oauthStartPath(call.server)} />
      )}
      {call.response && (
        <ResultView
          response={call.response}
          server={call.server}
          onOpen={onOpen}
          {...(onRetry ? { onRetry } : {})}
        />
      )}
      {call.log.length > 0 && (
        <details className="call-log">
          <summary>Activity ({call.log.length})</summary>
          <ol>
            {call.log.map((entry) => (
              <li key={entry.seq} className={entry.kind}>
                <time dateTime={entry.at}>{new Date(entry.at).toLocaleTimeString()}</time> {entry.text}
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}
