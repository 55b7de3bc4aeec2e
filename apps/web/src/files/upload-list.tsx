// One row per upload: name, a progress bar with bytes and speed, cancel, and its own error with
// the suggestion, or the name My Files stored it under when the normalizer changed it.
import { formatBytes } from '@ferry/contract';
import { formatDuration, formatSpeed } from '../lib/format';
import type { UploadItem, UploadsState } from '../state/use-uploads';

function UploadRow({ item, cancel }: { item: UploadItem; cancel(id: string): void }) {
  const percent =
    item.size > 0 ? Math.round((item.loaded / item.size) * 100) : item.status === 'done' ? 100 : 0;
  const active = item.status === 'queued' || item.status === 'uploading';
  return (
    <li
      className={`upload-row ${item.status}`}
      data-testid="upload-row"
      data-status={item.status}
      data-name={item.name}
    >
      <div className="upload-line">
        <span className="upload-name" title={item.name}>
          {item.name}
        </span>
        {active && (
          <button
            type="button"
            className="small ghost"
            onClick={() => cancel(item.id)}
            aria-label={`Cancel upload of ${item.name}`}
          >
            Cancel
          </button>
        )}
      </div>
      {item.status !== 'error' && (
        <progress
          max={100}
          value={percent}
          aria-label={`Upload of ${item.name}`}
          data-testid="upload-progress"
        />
      )}
      <div className="upload-meta">
        {item.status === 'queued' && 'Waiting…'}
        {item.status === 'uploading' &&
          `${formatBytes(item.loaded)} of ${formatBytes(item.size)} · ${percent} %${
            item.rate
              ? ` · ${formatSpeed(item.rate)} · ${formatDuration((item.size - item.loaded) / item.rate)} left`
              : ''
          }`}
        {item.status === 'done' &&
          (item.stored?.unchanged
            ? `Already in My Files, unchanged (v${item.stored.version}) · ${formatBytes(item.size)}`
            : `Uploaded · ${formatBytes(item.size)}`)}
        {item.status === 'cancelled' && 'Cancelled'}
      </div>
      {item.storedName && item.status !== 'error' && item.status !== 'cancelled' && (
        <div className="upload-renamed" data-testid="upload-renamed">
          Stored as <strong>{item.storedName}</strong>
        </div>
      )}
      {item.status === 'error' && (
        <div className="upload-error" role="alert">
          {item.error}
          {item.suggestion && <div className="suggestion">{item.suggestion}</div>}
        </div>
      )}
    </li>
  );
}

export function UploadList({ uploads }: { uploads: UploadsState }) {
  if (uploads.items.length === 0) return null;
  const finished = uploads.items.some((item) => item.status !== 'queued' && item.status !== 'uploading');
  return (
    <section className="uploads" aria-label="Uploads">
      <div className="section-head">
        <h3>Uploads</h3>
        {finished && (
          <button type="button" className="small ghost" onClick={uploads.clearFinished}>
            Clear finished
          </button>
        )}
      </div>
      <ul className="upload-list">
        {uploads.items.map((item) => (
          <UploadRow key={item.id} item={item} cancel={uploads.cancel} />
        ))}
      </ul>
    </section>
  );
}
