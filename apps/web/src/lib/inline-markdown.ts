// Text from an MCP server (a tool's description, a field's) as inline markdown: `code`, emphasis,
// links. A server may put raw HTML (<script>, onerror=…) in it: it is escaped, and the result is
// sanitized and limited to inline tags all the same. Links open in a new tab without access to this one. Loaded with import() (see
// components/markdown-inline.tsx) so marked and DOMPurify stay out of the first chunk.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Raw HTML shows as the text it is: descriptions say things like "Defaults to <file name>", which
// as HTML would vanish; a <script> is shown, not run (and DOMPurify below would drop it anyway).
const markdown = new Marked({ gfm: true, breaks: true, async: false }).use({
  renderer: { html: ({ text }) => escapeHtml(text) },
});

// An instance of its own: the link hook must not touch what the markdown viewer sanitizes.
const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const INLINE_ONLY = {
  ALLOWED_TAGS: ['a', 'code', 'em', 'strong', 'del', 'br'],
  ALLOWED_ATTR: ['href', 'title'],
};

export function renderInlineMarkdown(text: string): string {
  return purify.sanitize(markdown.parseInline(text) as string, INLINE_ONLY);
}
