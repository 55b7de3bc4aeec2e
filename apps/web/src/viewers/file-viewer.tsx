// Picks the viewer for a canvas item: the file's `viewer` (from the API, itself chosen by the
// contract's chooseViewer from the tool's hint and the MIME type) or, when absent, viewerForFile.
import { viewerForFile } from '@ferry/contract';
import { lazy, Suspense } from 'react';
import type { CanvasItem } from '../lib/canvas-layout';
import { DownloadViewer } from './download-viewer';

// Every viewer but the download card loads the first time it is needed (pdf.js, highlight.js,
// marked + DOMPurify, the virtualizer…), so the app itself starts small (budget: see
// apps/web/scripts/bundle-budget.mjs).
const PdfViewer = lazy(() => import('./pdf-viewer').then((m) => ({ default: m.PdfViewer })));
const CodeViewer = lazy(() => import('./code-viewer').then((m) => ({ default: m.CodeViewer })));
const MarkdownViewer = lazy(() => import('./markdown-viewer').then((m) => ({ default: m.MarkdownViewer })));
const TableViewer = lazy(() => import('./table-viewer').then((m) => ({ default: m.TableViewer })));
const JsonViewer = lazy(() => import('./json-viewer').then((m) => ({ default: m.JsonViewer })));
const ImageViewer = lazy(() => import('./image-viewer').then((m) => ({ default: m.ImageViewer })));
const MediaViewer = lazy(() => import('./media-viewer').then((m) => ({ default: m.MediaViewer })));
const HtmlViewer = lazy(() => import('./html-viewer').then((m) => ({ default: m.HtmlViewer })));
const FrameViewer = lazy(() => import('./html-viewer').then((m) => ({ default: m.FrameViewer })));
const AppView = lazy(() => import('../apps/app-view').then((m) => ({ default: m.AppView })));

export function viewerOf(file: { viewer?: string; mime: string; name: string }): string {
  return file.viewer && file.viewer !== 'auto' ? file.viewer : viewerForFile(file);
}

export function FileViewer({ item }: { item: CanvasItem }) {
  return (
    <Suspense fallback={<p className="viewer-loading">Loading the viewer…</p>}>
      <ChosenViewer item={item} />
    </Suspense>
  );
}

function ChosenViewer({ item }: { item: CanvasItem }) {
  if (item.kind === 'frame') return <FrameViewer item={item} />;
  if (item.kind === 'app') return <AppView item={item} />;
  const { fileId, name, mime, size } = item;
  switch (viewerOf(item)) {
    case 'image':
      return <ImageViewer fileId={fileId} name={name} />;
    case 'pdf':
      return <PdfViewer fileId={fileId} name={name} />;
    case 'html':
      return <HtmlViewer fileId={fileId} name={name} size={size} />;
    case 'markdown':
      return <MarkdownViewer fileId={fileId} size={size} />;
    case 'code':
      return <CodeViewer fileId={fileId} name={name} size={size} highlight />;
    case 'text':
      return <CodeViewer fileId={fileId} name={name} size={size} highlight={false} />;
    case 'csv':
      return <TableViewer fileId={fileId} name={name} mime={mime} size={size} />;
    case 'json':
      return <JsonViewer fileId={fileId} size={size} />;
    case 'audio':
      return <MediaViewer fileId={fileId} name={name} kind="audio" />;
    case 'video':
      return <MediaViewer fileId={fileId} name={name} kind="video" />;
    default:
      return <DownloadViewer fileId={fileId} name={name} mime={mime} size={size} />;
  }
}
