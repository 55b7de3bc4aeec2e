// Markdown rendered by marked and sanitized by DOMPurify before it reaches the DOM: a tool's
// markdown may carry raw HTML (script, onerror=…), which must never run in Ferry's origin.
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';
import { TEXT_VIEW_LIMIT, useFileText } from './use-file-text';
import { ViewerStatus } from './viewer-status';

// A wide code block scrolls sideways: tabindex="0" lets the keyboard reach and scroll it (axe
// scrollable-region-focusable). Hooks run on DOMPurify's default instance, which only this
// module uses (inline markdown has its own).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'PRE') node.setAttribute('tabindex', '0');
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true }) as string;
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}

export function MarkdownViewer({ fileId, size }: { fileId: string; size: number }) {
  const state = useFileText(fileId, size);
  const html = useMemo(() => (state.text === null ? '' : renderMarkdown(state.text)), [state.text]);
  const article =
    state.text === null ? null : (
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify in renderMarkdown
      <article className="markdown-body" dangerouslySetInnerHTML={{ __html: html }} />
    );
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a long document scrolls; the keyboard must reach it (axe scrollable-region-focusable)
    <div className="markdown-viewer" tabIndex={0}>
      <ViewerStatus state={state} limit={TEXT_VIEW_LIMIT} />
      {article}
    </div>
  );
}
