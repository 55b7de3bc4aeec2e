// One file in My Files: open (preview on the canvas), download, rename, versions, delete, and
// what it is: size, date, version, session-only or persistent, and for deferred drafts their
// description and time to expiry.
import type { FileDto } from '@ferry/contract';
import { formatBytes } from '@ferry/contract';
import { contentUrl } from '../api/client';
import { fileState, showsCategory } from '../lib/file-state';
import { formatDate } from '../lib/format';

export interface FileRowActions {
  open(file: FileDto): void;
  rename(file: FileDto): void;
  versions(file: FileDto): void;
  remove(file: FileDto): void;
}

export function FileRow({ file, actions, now }: { file: FileDto; actions: FileRowActions; now: number }) {
  const state = fileState(file, now);
  return (
    <li className="file-row" data-testid="file-row" data-name={file.name} data-source={file.source}>
      <button
        type="button"
        className="file-open"
        onClick={() => actions.open(file)}
        title={`Open ${file.name}`}
      >
        <span className="file-name">{file.name}</span>
        <span className="file-meta">
          {formatBytes(file.size)} · <time dateTime={file.createdAt}>{formatDate(file.createdAt)}</time>
          {file.version > 1 && ` · v${file.version}`}
        </span>
      </button>
      <div className="file-badges">
        {/* One state per file; a deferred draft's expiry is part of it. */}
        <span className={`badge ${state.tone}`} title={state.explanation} data-testid="file-state">
          {state.text}
          {/* A tooltip never shows on touch screens or to screen readers; a draft's needs saying. */}
          {file.source === 'deferred' && <span className="sr-only">. {state.explanation}</span>}
        </span>
        {showsCategory(file) && <span className="badge">{file.category}</span>}
      </div>
      {file.source === 'deferred' && (
        <div className="deferred-info">
          {file.info?.deferredReason && (
            <p className="deferred-reason">Waiting: {file.info.deferredReason.replace(/_/g, ' ')}</p>
          )}
          {file.description && <p>{file.description}</p>}
          {file.info?.nextActions && file.info.nextActions.length > 0 && (
            <p className="deferred-next">
              Next: {file.info.nextActions.map((a) => a.replace(/_/g, ' ')).join(', ')}
            </p>
          )}
        </div>
      )}
      {file.source !== 'deferred' && file.description && (
        <p className="file-description">{file.description}</p>
      )}
      <div className="file-actions">
        <a
          className="button small ghost"
          href={contentUrl(file.id, { download: true })}
          download={file.name}
          aria-label={`Download ${file.name}`}
        >
          Download
        </a>
        <button
          type="button"
          className="small ghost"
          onClick={() => actions.rename(file)}
          aria-label={`Rename ${file.name}`}
        >
          Rename
        </button>
        <button
          type="button"
          className="small ghost"
          onClick={() => actions.versions(file)}
          aria-label={`Versions of ${file.name}`}
        >
          Versions
        </button>
        <button
          type="button"
          className="small ghost danger"
          onClick={() => actions.remove(file)}
          aria-label={`Delete ${file.name}`}
        >
          Delete
        </button>
      </div>
    </li>
  );
}
