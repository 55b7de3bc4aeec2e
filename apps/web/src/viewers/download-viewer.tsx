// Anything no viewer shows: what it is and a download button.

import { formatBytes } from '@ferry/contract';
import { contentUrl } from '../api/client';
import type { ViewedFile } from '../lib/canvas-layout';

export function DownloadViewer({ fileId, name, mime, size }: ViewedFile) {
  return (
    <div className="download-viewer">
      <p className="download-name">{name}</p>
      <p className="muted">
        {mime} · {formatBytes(size)}
      </p>
      <p>There is no preview for this type of file.</p>
      <a className="button primary" href={contentUrl(fileId, { download: true })} download={name}>
        Download
      </a>
    </div>
  );
}
