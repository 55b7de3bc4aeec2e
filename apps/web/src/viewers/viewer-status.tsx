// The loading / error / "only the first N MB" lines every text-based viewer shares.
import { formatBytes } from '@ferry/contract';
import type { FileText } from './use-file-text';

export function ViewerStatus({ state, limit }: { state: FileText; limit: number }) {
  if (state.error) {
    return (
      <p className="viewer-error" role="alert">
        Could not load the file: {state.error}
      </p>
    );
  }
  if (state.text === null) return <p className="viewer-loading">Loading…</p>;
  if (state.truncated) {
    return (
      <p className="viewer-note">
        Showing the first {formatBytes(limit)}; download the file to see all of it.
      </p>
    );
  }
  return null;
}
