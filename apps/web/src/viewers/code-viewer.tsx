// Code and plain text. Code is highlighted by highlight.js (its "common" language set), picked by
// extension; highlighting is skipped above 512 KB, where it would stall the page for little gain.
import hljs from 'highlight.js/lib/common';
import { useMemo } from 'react';
import { TEXT_VIEW_LIMIT, useFileText } from './use-file-text';
import { ViewerStatus } from './viewer-status';

const HIGHLIGHT_LIMIT = 512 * 1024;

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  go: 'go',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  sh: 'bash',
  bash: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  sql: 'sql',
  css: 'css',
  scss: 'scss',
  xml: 'xml',
  html: 'xml',
  svg: 'xml',
  json: 'json',
  md: 'markdown',
  php: 'php',
  swift: 'swift',
  r: 'r',
  lua: 'lua',
  diff: 'diff',
};

function languageFor(name: string): string | undefined {
  const extension = name.toLowerCase().split('.').pop() ?? '';
  const language = LANGUAGE_BY_EXTENSION[extension];
  return language && hljs.getLanguage(language) ? language : undefined;
}

export function CodeViewer({
  fileId,
  name,
  size,
  highlight,
}: {
  fileId: string;
  name: string;
  size: number;
  highlight: boolean;
}) {
  const state = useFileText(fileId, size);
  const html = useMemo(() => {
    if (state.text === null || !highlight || state.text.length > HIGHLIGHT_LIMIT) return null;
    const language = languageFor(name);
    return language ? hljs.highlight(state.text, { language }).value : hljs.highlightAuto(state.text).value;
  }, [state.text, name, highlight]);
  const code =
    html !== null ? (
      // biome-ignore lint/security/noDangerouslySetInnerHtml: highlight.js escapes the source text it marks up
      <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
    ) : (
      <code>{state.text}</code>
    );
  return (
    <div className="code-viewer">
      <ViewerStatus state={state} limit={TEXT_VIEW_LIMIT} />
      {state.text !== null && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; the keyboard must reach it (axe scrollable-region-focusable)
        <pre className="code-block" tabIndex={0}>
          {code}
        </pre>
      )}
    </div>
  );
}
