// A running call's live progress bar (determinate when the tool reports a total) with its message,
// and the 15/20/25 s notices in order: the same in the tool runner and in a chat tool card.
import type { CallState } from '../state/use-tool-call';

export function CallProgress({ progress }: { progress: CallState['progress'] }) {
  const percent = progress?.percent;
  return (
    <div className="call-progress">
      <progress
        max={100}
        value={percent}
        aria-label="Progress"
        data-testid="call-progress"
        aria-valuetext={progress?.message ?? (percent === undefined ? 'working' : `${Math.round(percent)} %`)}
      />
      <span className="progress-message" aria-live="polite" data-testid="progress-message">
        {percent !== undefined && `${Math.round(percent)} % `}
        {progress?.message ?? ''}
      </span>
    </div>
  );
}

export function CallNotices({ notices }: { notices: CallState['notices'] }) {
  if (notices.length === 0) return null;
  return (
    <ol className="notices" aria-label="Notices" data-testid="notices">
      {notices.map((notice) => (
        <li
          key={`${notice.kind}-${notice.afterSeconds}`}
          className={`notice ${notice.kind}`}
          data-testid="notice"
        >
          <span className="notice-time">{Math.round(notice.afterSeconds * 10) / 10} s</span> {notice.message}
        </li>
      ))}
    </ol>
  );
}
