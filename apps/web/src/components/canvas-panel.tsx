// The canvas: a tab per open file (or v2 iframe canvas), the active one shown, and in split
// mode a second pane beside it. Tabs follow the ARIA tabs pattern (arrow keys move between them).
import type { Dispatch, KeyboardEvent } from 'react';
import { contentUrl } from '../api/client';
import type { CanvasAction, CanvasItem, CanvasState } from '../lib/canvas-layout';
import { FileViewer } from '../viewers/file-viewer';

function titleOf(item: CanvasItem): string {
  return item.kind === 'file' ? item.name : item.title;
}

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
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const index = state.items.findIndex((item) => item.key === active?.key);
    const next =
      state.items[(index + (event.key === 'ArrowRight' ? 1 : -1) + state.items.length) % state.items.length];
    if (next) {
      dispatch({ type: 'focus', key: next.key });
      document.getElementById(`canvas-tab-${next.key}`)?.focus();
    }
  };
  return (
    <aside className="canvas" aria-label="Canvas">
      <div className="canvas-head">
        <h2 className="panel-title">Canvas</h2>
        <div className="canvas-tabs" role="tablist" aria-label="Open files" onKeyDown={onKeyDown}>
          {state.items.map((item) => (
            <div key={item.key} className={`canvas-tab${item.key === active?.key ? ' active' : ''}`}>
              <button
                type="button"
                role="tab"
                id={`canvas-tab-${item.key}`}
                aria-selected={item.key === active?.key}
                tabIndex={item.key === active?.key ? 0 : -1}
                onClick={() => dispatch({ type: 'focus', key: item.key })}
                title={titleOf(item)}
              >
                {titleOf(item)}
              </button>
              <button
                type="button"
                className="tab-close"
                aria-label={`Close ${titleOf(item)}`}
                onClick={() => dispatch({ type: 'close', key: item.key })}
              >
                ×
              </button>
            </div>
          ))}
        </div>
        <button
          type="button"
          className="small ghost"
          onClick={() => dispatch({ type: 'toggle', open: false })}
        >
          Hide
        </button>
      </div>
      {active ? (
        <div
          className={`canvas-body${secondary ? ' split' : ''}`}
          role="tabpanel"
          aria-label={titleOf(active)}
        >
          {secondary && (
            <Pane item={secondary} label="Previous file" onClose={() => dispatch({ type: 'unsplit' })} />
          )}
          <Pane item={active} label="Current file" />
        </div>
      ) : (
        <div className="canvas-empty">
          <p>Nothing open yet.</p>
          <p className="muted">Open a file from My Files, or run a tool: what it makes appears here.</p>
        </div>
      )}
    </aside>
  );
}
