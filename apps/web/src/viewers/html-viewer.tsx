// HTML artifacts run in an iframe built from srcdoc with sandbox="allow-scripts" and nothing
// else: without allow-same-origin the document gets an opaque origin, so its scripts cannot read
// Ferry's cookies, storage or DOM, nor call the API as the user. The file is fetched as text here
// (the API serves HTML only as an attachment, never rendered on its own origin).
import { TEXT_VIEW_LIMIT, useFileText } from './use-file-text';
import { ViewerStatus } from './viewer-status';

const HTML_SANDBOX = 'allow-scripts';

export function HtmlViewer({ fileId, name, size }: { fileId: string; name: string; size: number }) {
  const state = useFileText(fileId, size);
  return (
    <div className="html-viewer">
      <ViewerStatus state={state} limit={TEXT_VIEW_LIMIT} />
      {state.text !== null && (
        <iframe
          className="html-frame"
          title={`${name} (sandboxed)`}
          sandbox={HTML_SANDBOX}
          srcDoc={state.text}
          referrerPolicy="no-referrer"
        />
      )}
    </div>
  );
}

/** v2 `canvas` envelope: a tool's own page (dashboard) in an iframe, sandboxed the same way. */
export function FrameViewer({ url, title }: { url: string; title: string }) {
  let safe: string | null = null;
  try {
    const parsed = new URL(url, window.location.href);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') safe = parsed.href;
  } catch {
    safe = null;
  }
  if (!safe) return <p className="viewer-error">This canvas has an address Ferry will not open: {url}</p>;
  return (
    <iframe
      className="html-frame"
      title={title}
      src={safe}
      sandbox={HTML_SANDBOX}
      referrerPolicy="no-referrer"
    />
  );
}
