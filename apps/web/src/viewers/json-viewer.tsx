// JSON files as a tree; text that does not parse is shown as it is, with the parse error.
import { useMemo } from 'react';
import { JsonTree } from '../components/json-tree';
import { TEXT_VIEW_LIMIT, useFileText } from './use-file-text';
import { ViewerStatus } from './viewer-status';

export function JsonViewer({ fileId, size }: { fileId: string; size: number }) {
  const state = useFileText(fileId, size);
  const parsed = useMemo(() => {
    if (state.text === null || state.truncated) return undefined;
    try {
      return { ok: true as const, value: JSON.parse(state.text) as unknown };
    } catch (error) {
      return { ok: false as const, error: (error as Error).message };
    }
  }, [state.text, state.truncated]);
  return (
    <div className="json-viewer">
      <ViewerStatus state={state} limit={TEXT_VIEW_LIMIT} />
      {parsed?.ok === true && <JsonTree value={parsed.value} />}
      {state.text !== null && parsed?.ok !== true && (
        <>
          {parsed?.ok === false && <p className="viewer-note">Not valid JSON: {parsed.error}</p>}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
          <pre className="code-block" tabIndex={0}>
            {state.text}
          </pre>
        </>
      )}
    </div>
  );
}
