// Images with zoom: fit to the pane by default, then 25 %–800 % with the buttons, the keys
// + / - / 0 while the image area has focus (Chromium makes scrollers focusable), or Ctrl + wheel.
import { useEffect, useRef, useState } from 'react';
import { contentUrl } from '../api/client';

const STEPS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8];

function nextZoom(current: number, direction: 1 | -1): number {
  const next =
    direction > 0
      ? STEPS.find((s) => s > current + 1e-9)
      : [...STEPS].reverse().find((s) => s < current - 1e-9);
  return next ?? current;
}

export function ImageViewer({ fileId, name }: { fileId: string; name: string }) {
  const [zoom, setZoom] = useState<number | 'fit'>('fit');
  const stage = useRef<HTMLDivElement>(null);
  const step = (direction: 1 | -1) => setZoom((z) => nextZoom(z === 'fit' ? 1 : z, direction));

  // Listeners added by hand: React's wheel listener is passive, and Ctrl+wheel must not zoom the page.
  useEffect(() => {
    const element = stage.current;
    if (!element) return;
    const wheel = (event: WheelEvent) => {
      if (!event.ctrlKey) return;
      event.preventDefault();
      setZoom((z) => nextZoom(z === 'fit' ? 1 : z, event.deltaY < 0 ? 1 : -1));
    };
    const key = (event: KeyboardEvent) => {
      if (event.key === '+' || event.key === '=') setZoom((z) => nextZoom(z === 'fit' ? 1 : z, 1));
      else if (event.key === '-') setZoom((z) => nextZoom(z === 'fit' ? 1 : z, -1));
      else if (event.key === '0') setZoom('fit');
    };
    element.addEventListener('wheel', wheel, { passive: false });
    element.addEventListener('keydown', key);
    return () => {
      element.removeEventListener('wheel', wheel);
      element.removeEventListener('keydown', key);
    };
  }, []);

  return (
    <div className="image-viewer">
      <div className="viewer-toolbar" role="toolbar" aria-label="Zoom">
        <button type="button" onClick={() => step(-1)} aria-label="Zoom out">
          −
        </button>
        <output aria-live="polite" className="zoom-level" data-testid="zoom-level">
          {zoom === 'fit' ? 'Fit' : `${Math.round(zoom * 100)} %`}
        </output>
        <button type="button" onClick={() => step(1)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => setZoom('fit')} aria-pressed={zoom === 'fit'}>
          Fit
        </button>
        <button type="button" onClick={() => setZoom(1)} aria-pressed={zoom === 1}>
          100 %
        </button>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: zoomed in, the image scrolls; the keyboard must reach it (axe scrollable-region-focusable) */}
      <div ref={stage} className={`image-stage${zoom === 'fit' ? ' fit' : ''}`} tabIndex={0}>
        <img
          src={contentUrl(fileId)}
          alt={name}
          style={zoom === 'fit' ? undefined : { zoom }}
          draggable={false}
        />
      </div>
    </div>
  );
}
