// HTML artifacts run in an iframe built from srcdoc with sandbox="allow-scripts" and nothing
// else: without allow-same-origin the document gets an opaque origin, so its scripts cannot read
// Ferry's cookies, storage or DOM, nor call the API as the user. The file is fetched as text here
// (the API serves HTML only as an attachment, never rendered on its own origin).
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { FRAME_SANDBOX, isTokenRequest, planFrame, tokenExpired, tokenMessage } from '../lib/canvas-frame';
import type { CanvasFrameItem } from '../lib/canvas-layout';
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

/**
 * v2 `canvas` envelope: a tool's own page (dashboard) in an iframe (docs/canvas.md). Framed only
 * when the host marked it allowed, the browser-side checks pass (lib/canvas-frame.ts) and the API
 * answered the open with 204 (it checks the origin again and logs the open with the user). Once the
 * frame has loaded, its token is posted to it, to its allowed origin exactly.
 */
export function FrameViewer({ item }: { item: CanvasFrameItem }) {
  const plan = planFrame(item, window.location.origin);
  const [opened, setOpened] = useState<{ url: string; refusal?: string } | null>(null);
  const { server, callId, url } = item;
  const canvasId = item.canvasId ?? item.key;
  const allowed = plan.ok;
  useEffect(() => {
    if (!allowed || !server) return;
    let live = true;
    api('/api/canvas-opens', {
      method: 'POST',
      json: { server, canvasId, url, ...(callId ? { callId } : {}) },
    })
      .then(() => live && setOpened({ url }))
      .catch((error: unknown) => live && setOpened({ url, refusal: errorText(error) }));
    return () => {
      live = false;
    };
  }, [allowed, server, canvasId, callId, url]);

  if (!plan.ok) return <FrameRefusal reason={plan.reason} />;
  if (opened?.url !== url) return <p className="viewer-loading">Checking the canvas address…</p>;
  if (opened.refusal !== undefined) return <FrameRefusal reason={opened.refusal} />;
  return <TokenFrame item={item} src={plan.src} origin={plan.origin} />;
}

function FrameRefusal({ reason }: { reason: string }) {
  return (
    <p className="viewer-error" role="alert" data-testid="canvas-refusal">
      Not opened: {reason}
    </p>
  );
}

function TokenFrame({ item, src, origin }: { item: CanvasFrameItem; src: string; origin: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const loaded = useRef(false);
  // Posted to the allowed origin only: if the frame has navigated elsewhere, the browser drops it.
  const sendToken = useCallback(() => {
    const message = tokenMessage(item, Date.now());
    if (message) frame.current?.contentWindow?.postMessage(message, origin);
  }, [item, origin]);
  // A later call with the same canvas id replaces the tab in place: its fresh token goes to the
  // frame that is already open.
  useEffect(() => {
    if (loaded.current) sendToken();
  }, [sendToken]);
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== frame.current?.contentWindow || event.origin !== origin) return;
      if (isTokenRequest(event.data)) sendToken();
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin, sendToken]);
  return (
    <>
      {item.token && tokenExpired(item, Date.now()) && (
        <p className="viewer-note">Its access token has expired: run the tool again for a fresh one.</p>
      )}
      <iframe
        ref={frame}
        className="html-frame canvas-frame"
        title={item.title}
        src={src}
        sandbox={FRAME_SANDBOX}
        referrerPolicy="no-referrer"
        allow=""
        // No ambient cookies or storage of the tool's site (Chromium; others ignore it). React
        // knows it as a boolean attribute; the DOM types do not list it yet.
        {...{ credentialless: true }}
        onLoad={() => {
          loaded.current = true;
          sendToken();
        }}
      />
    </>
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
