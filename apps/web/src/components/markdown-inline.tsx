// Inline markdown from a tool server (lib/inline-markdown.ts), as a paragraph: the plain text at
// once, the rendered markdown as soon as its renderer has loaded (a separate chunk). If the chunk
// cannot load, the plain text stays.
import { useEffect, useState } from 'react';

type Render = (text: string) => string;
let renderer: Promise<Render> | null = null;

function loadRenderer(): Promise<Render> {
  renderer ??= import('../lib/inline-markdown').then(
    (module) => module.renderInlineMarkdown,
    (error: unknown) => {
      renderer = null; // try again next time (a deploy may have replaced the chunk)
      throw error;
    },
  );
  return renderer;
}

export function MarkdownInline({ text, className }: { text: string; className: string }) {
  const [rendered, setRendered] = useState<{ text: string; html: string } | null>(null);
  useEffect(() => {
    let current = true;
    loadRenderer().then(
      (render) => {
        if (current) setRendered({ text, html: render(text) });
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [text]);
  if (rendered?.text !== text) return <p className={className}>{text}</p>;
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify in renderInlineMarkdown
    <p className={className} dangerouslySetInnerHTML={{ __html: rendered.html }} />
  );
}
