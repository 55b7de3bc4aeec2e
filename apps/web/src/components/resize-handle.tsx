// A vertical splitter between two panels: drag with the pointer, or focus it and use the arrow
// keys (Shift for bigger steps). `onResize` receives the pixel delta.
import { type KeyboardEvent, type PointerEvent, useRef } from 'react';

export function ResizeHandle({
  label,
  value,
  min,
  max,
  onResize,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  onResize(delta: number): void;
}) {
  const last = useRef<number | null>(null);
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    event.currentTarget.setPointerCapture(event.pointerId);
    last.current = event.clientX;
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (last.current === null) return;
    onResize(event.clientX - last.current);
    last.current = event.clientX;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.shiftKey ? 80 : 20;
    if (event.key === 'ArrowLeft') onResize(-step);
    else if (event.key === 'ArrowRight') onResize(step);
    else return;
    event.preventDefault();
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable splitter is role="separator" in ARIA; <hr> cannot take focus or pointer drags
    <div
      className="resize-handle"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={Math.round(value)}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={() => {
        last.current = null;
      }}
      onKeyDown={onKeyDown}
    />
  );
}
