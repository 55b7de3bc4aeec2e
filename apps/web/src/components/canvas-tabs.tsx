// The canvas tab strip. The tablist holds its tabs and nothing else (ARIA: a tablist owns only
// tabs, so the close button sits beside it, for the active tab). The strip scrolls sideways and
// always brings the active tab into view, so no tab hides under the buttons next to it.
// Keyboard: arrows, Home and End move between tabs (and show them), Delete closes the focused
// tab; middle click closes any tab. After a close, focus goes to the tab that took its place.
import { type KeyboardEvent, useCallback, useEffect, useRef } from 'react';
import type { CanvasItem } from '../lib/canvas-layout';
import { revealScroll } from '../lib/reveal-scroll';

export function canvasTitleOf(item: CanvasItem): string {
  return item.kind === 'file' ? item.name : item.title;
}

export const canvasTabId = (key: string) => `canvas-tab-${key}`;

export function CanvasTabs({
  items,
  active,
  onSelect,
  onClose,
  onEmptied,
}: {
  items: readonly CanvasItem[];
  active: CanvasItem | undefined;
  onSelect(key: string): void;
  onClose(key: string): void;
  /** Called after the last tab was closed from here: focus must go somewhere sensible. */
  onEmptied(): void;
}) {
  const strip = useRef<HTMLDivElement>(null);
  const refocus = useRef(false);

  const reveal = useCallback(() => {
    const box = strip.current;
    const tab = active ? document.getElementById(canvasTabId(active.key)) : null;
    if (!box || !tab || !box.contains(tab)) return;
    const boxLeft = box.getBoundingClientRect().left;
    const rect = tab.getBoundingClientRect();
    const start = rect.left - boxLeft + box.scrollLeft;
    box.scrollLeft = revealScroll(box.scrollLeft, box.clientWidth, start, start + rect.width, 8);
  }, [active]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new or closed tab moves the active one too
  useEffect(reveal, [reveal, items.length]);
  useEffect(() => {
    const box = strip.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    // A narrower canvas (resize, window) must not leave the active tab cut off.
    const observer = new ResizeObserver(() => reveal());
    observer.observe(box);
    return () => observer.disconnect();
  }, [reveal]);

  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    if (active) document.getElementById(canvasTabId(active.key))?.focus();
    else onEmptied();
  }, [active, onEmptied]);

  const close = (key: string) => {
    // Closing another tab (middle click) leaves focus where it is.
    refocus.current = key === active?.key;
    onClose(key);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = items.findIndex((item) => item.key === active?.key);
    let next: CanvasItem | undefined;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      next = items[(index + (event.key === 'ArrowRight' ? 1 : -1) + items.length) % items.length];
    } else if (event.key === 'Home') next = items[0];
    else if (event.key === 'End') next = items[items.length - 1];
    else if (event.key === 'Delete' && active) {
      event.preventDefault();
      close(active.key);
      return;
    } else return;
    event.preventDefault();
    if (next) {
      onSelect(next.key);
      document.getElementById(canvasTabId(next.key))?.focus();
    }
  };

  return (
    <>
      <div
        ref={strip}
        className="canvas-tabs"
        data-testid="canvas-tab-strip"
        // A mouse wheel scrolls the strip sideways: it has no vertical scroll of its own.
        onWheel={(event) => {
          if (strip.current && Math.abs(event.deltaY) > Math.abs(event.deltaX)) {
            strip.current.scrollLeft += event.deltaY;
          }
        }}
      >
        <div role="tablist" aria-label="Open files" className="canvas-tablist" onKeyDown={onKeyDown}>
          {items.map((item) => {
            const selected = item.key === active?.key;
            return (
              <button
                key={item.key}
                type="button"
                role="tab"
                id={canvasTabId(item.key)}
                className={`canvas-tab${selected ? ' active' : ''}`}
                aria-selected={selected}
                aria-controls={selected ? 'canvas-tabpanel' : undefined}
                aria-keyshortcuts="Delete"
                tabIndex={selected ? 0 : -1}
                onClick={() => onSelect(item.key)}
                onAuxClick={(event) => {
                  if (event.button === 1) close(item.key);
                }}
                title={canvasTitleOf(item)}
              >
                {canvasTitleOf(item)}
              </button>
            );
          })}
        </div>
      </div>
      {active && (
        <button
          type="button"
          className="small ghost tab-close"
          aria-label={`Close ${canvasTitleOf(active)}`}
          title={`Close ${canvasTitleOf(active)} (Delete on its tab)`}
          onClick={() => close(active.key)}
          data-testid="canvas-tab-close"
        >
          ×
        </button>
      )}
    </>
  );
}
