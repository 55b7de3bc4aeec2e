// The canvas: a tab per open file (or v2 iframe canvas), the active one shown, and in split
// mode a second pane beside it. Tabs follow the ARIA tabs pattern (canvas-tabs.tsx).
import { type Dispatch, useCallback, useEffect, useRef } from 'react';
import { contentUrl } from '../api/client';
import { teardownApp } from '../apps/app-registry';
import type { CanvasAction, CanvasItem, CanvasState } from '../lib/canvas-layout';
import { FileViewer } from '../viewers/file-viewer';
import { CanvasTabs, canvasTabId, canvasTitleOf as titleOf } from './canvas-tabs';
import { CANVAS_TOGGLE_ID } from './top-bar';

/** Below this width the panels stack (styles.css): the canvas sits under the tool runner. */
const STACKED = '(max-width: 900px)';

function Pane({ item, onClose, label }: { item: CanvasItem; onClose?: () => void; label: string }) {
  return (
    <section className="canvas-pane" aria-label={label} data-testid="canvas-pane" data-item={titleOf(item)}>
      <header className="canvas-pane-head">
        <h3 title={titleOf(item)}>{titleOf(item)}</h3>
        {item.kind === 'file' && (
          <a className="button small" href={contentUrl(item.fileId, { download: true })} download={item.name}>
            Download
          </a>
        )}
        {onClose && (
          <button type="button" className="small" onClick={onClose}>
            Close split
          </button>
        )}
      </header>
      <div className="canvas-pane-body">
        <FileViewer key={item.key} item={item} />
      </div>
    </section>
  );
}

export function CanvasPanel({ state, dispatch }: { state: CanvasState; dispatch: Dispatch<CanvasAction> }) {
  const active = state.items.find((item) => item.key === state.active) ?? state.items[0];
  const secondary = state.secondary ? state.items.find((item) => item.key === state.secondary) : undefined;
  const panel = useRef<HTMLElement>(null);
  const empty = useRef<HTMLDivElement>(null);
  const onEmptied = useCallback(() => empty.current?.focus(), []);
  // Stacked under the runner, a file the user opens would show out of sight: bring the canvas
  // up. Not for tabs restored by a reload (no user gesture yet): the page starts at the top.
  useEffect(() => {
    if (active?.key === undefined || !navigator.userActivation?.hasBeenActive) return;
    if (window.matchMedia?.(STACKED).matches) panel.current?.scrollIntoView({ block: 'nearest' });
  }, [active?.key]);
  const hide = () => {
    dispatch({ type: 'toggle', open: false });
    document.getElementById(CANVAS_TOGGLE_ID)?.focus();
  };
  return (
    <aside className="canvas" aria-label="Canvas" ref={panel}>
      <div className="canvas-head">
        <h2 className="panel-title">Canvas</h2>
        <CanvasTabs
          items={state.items}
          active={active}
          onSelect={(key) => dispatch({ type: 'focus', key })}
          // An app answers its teardown (or times out) before its frame goes.
          onClose={(key) =>
            void teardownApp(key, 'The user closed the tab').then(() => dispatch({ type: 'close', key }))
          }
          onEmptied={onEmptied}
        />
        <button type="button" className="small ghost canvas-hide" onClick={hide}>
          Hide
        </button>
      </div>
      {active ? (
        <div
          className={`canvas-body${secondary ? ' split' : ''}`}
          role="tabpanel"
          id="canvas-tabpanel"
          aria-labelledby={canvasTabId(active.key)}
        >
          {secondary && (
            <Pane item={secondary} label="Previous file" onClose={() => dispatch({ type: 'unsplit' })} />
          )}
          <Pane item={active} label="Current file" />
        </div>
      ) : (
        <div className="canvas-empty" ref={empty} tabIndex={-1}>
          <p>Nothing open yet.</p>
          <p className="muted">Open a file from My Files, or run a tool: what it makes appears here.</p>
        </div>
      )}
    </aside>
  );
}
