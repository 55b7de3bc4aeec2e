// Which rows of a long list of fixed-height rows are in view (plus `overscan` on each side), from
// the scroller's scrollTop and height. A general virtualizer keeps a measurement object per row,
// built in one go on the page's thread: ~150 ms for a million rows, the longest task left once
// the table is parsed in a worker. Fixed heights need only arithmetic.
import { useCallback, useEffect, useRef, useState } from 'react';

export interface RowWindow {
  /** First row to draw. */
  start: number;
  /** One past the last row to draw. */
  end: number;
}

export function useRowWindow(count: number, rowHeight: number, overscan: number) {
  const [view, setView] = useState({ top: 0, height: 0 });
  const observer = useRef<ResizeObserver | null>(null);
  const read = useCallback((el: HTMLElement) => {
    setView((old) =>
      old.top === el.scrollTop && old.height === el.clientHeight
        ? old
        : { top: el.scrollTop, height: el.clientHeight },
    );
  }, []);
  // A callback ref: the scroller appears only once the table is there.
  const ref = useCallback(
    (el: HTMLDivElement | null) => {
      observer.current?.disconnect();
      observer.current = null;
      if (!el) return;
      read(el);
      observer.current = new ResizeObserver(() => read(el));
      observer.current.observe(el);
    },
    [read],
  );
  useEffect(() => () => observer.current?.disconnect(), []);
  const onScroll = useCallback((event: React.UIEvent<HTMLElement>) => read(event.currentTarget), [read]);
  const visible: RowWindow = {
    start: Math.max(0, Math.floor(view.top / rowHeight) - overscan),
    end: Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + overscan),
  };
  return { ref, onScroll, window: visible };
}
