// Audio and video in the browser's own players; the bytes stream with Range requests.
import { contentUrl } from '../api/client';

export function MediaViewer({
  fileId,
  name,
  kind,
}: {
  fileId: string;
  name: string;
  kind: 'audio' | 'video';
}) {
  const src = contentUrl(fileId);
  return (
    <div className="media-viewer">
      {kind === 'audio' ? (
        // biome-ignore lint/a11y/useMediaCaption: tool output has no caption track to offer
        <audio controls src={src} aria-label={name} preload="metadata" />
      ) : (
        // biome-ignore lint/a11y/useMediaCaption: tool output has no caption track to offer
        <video controls src={src} aria-label={name} preload="metadata" />
      )}
    </div>
  );
}
