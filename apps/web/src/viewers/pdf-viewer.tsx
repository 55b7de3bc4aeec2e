// PDF with pdf.js: one page at a time on a canvas, page navigation and zoom. The worker is
// bundled by Vite (`?url`) and served from Ferry itself, so no CDN is involved.
import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy, type RenderTask } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'react';
import { contentUrl } from '../api/client';

GlobalWorkerOptions.workerSrc = workerUrl;

export function PdfViewer({ fileId, name }: { fileId: string; name: string }) {
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [scale, setScale] = useState(1.25);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    setDoc(null);
    setError(null);
    setPage(1);
    const task = getDocument({ url: contentUrl(fileId), isEvalSupported: false });
    task.promise.then(setDoc, (failure: unknown) => setError((failure as Error).message));
    return () => {
      void task.destroy();
    };
  }, [fileId]);

  useEffect(() => {
    if (!doc || !canvas.current) return;
    let render: RenderTask | null = null;
    let cancelled = false;
    void doc.getPage(page).then((p) => {
      if (cancelled || !canvas.current) return;
      const ratio = window.devicePixelRatio || 1;
      const viewport = p.getViewport({ scale: scale * ratio });
      const target = canvas.current;
      target.width = viewport.width;
      target.height = viewport.height;
      target.style.width = `${viewport.width / ratio}px`;
      target.style.height = `${viewport.height / ratio}px`;
      const context = target.getContext('2d');
      if (!context) return;
      render = p.render({ canvasContext: context, viewport });
      render.promise.catch(() => undefined);
    });
    return () => {
      cancelled = true;
      render?.cancel();
    };
  }, [doc, page, scale]);

  if (error)
    return (
      <p className="viewer-error" role="alert">
        Could not open the PDF: {error}
      </p>
    );
  const pages = doc?.numPages ?? 0;
  return (
    <div className="pdf-viewer">
      <div className="viewer-toolbar" role="toolbar" aria-label="PDF pages">
        <button type="button" onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={page <= 1}>
          ‹ Previous
        </button>
        <label className="page-input">
          Page{' '}
          <input
            type="number"
            min={1}
            max={pages || 1}
            value={page}
            onChange={(event) => {
              const value = Number(event.target.value);
              if (Number.isInteger(value) && value >= 1 && value <= pages) setPage(value);
            }}
          />{' '}
          <span data-testid="pdf-page-count">of {pages || '…'}</span>
        </label>
        <button type="button" onClick={() => setPage((p) => Math.min(pages, p + 1))} disabled={page >= pages}>
          Next ›
        </button>
        <button type="button" onClick={() => setScale((s) => Math.max(0.5, s - 0.25))} aria-label="Zoom out">
          −
        </button>
        <output className="zoom-level">{Math.round(scale * 100)} %</output>
        <button type="button" onClick={() => setScale((s) => Math.min(4, s + 0.25))} aria-label="Zoom in">
          +
        </button>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the page scrolls when zoomed; the keyboard must reach it (axe scrollable-region-focusable) */}
      <div className="pdf-stage" tabIndex={0}>
        {doc ? (
          <canvas ref={canvas} aria-label={`${name}, page ${page} of ${pages}`} role="img" />
        ) : (
          <p>Loading…</p>
        )}
      </div>
    </div>
  );
}
