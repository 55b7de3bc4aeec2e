// Brand, the main views (tools, chat), the canvas toggle and the theme switch.
import type { Theme } from '../state/use-theme';

function FerryMark() {
  return (
    <svg
      width="20"
      height="20"
      viewBox="0 0 24 24"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      <path d="M3 15h18l-2.5 4.5h-13z" fill="currentColor" />
      <path d="M6 15V9h9l3 6M9 9V5h4v4" strokeLinejoin="round" />
      <path d="M2 21.5c2 0 2-1 4-1s2 1 4 1 2-1 4-1 2 1 4 1 2-1 4-1" />
    </svg>
  );
}

export type MainView = 'tools' | 'chat';

/** The canvas button: the canvas's Hide sends focus back here (canvas-panel.tsx). */
export const CANVAS_TOGGLE_ID = 'canvas-toggle';

export function TopBar(props: {
  view: MainView;
  onView(view: MainView): void;
  canvasOpen: boolean;
  canvasCount: number;
  onToggleCanvas(): void;
  theme: Theme;
  onToggleTheme(): void;
}) {
  const { view, onView, theme } = props;
  return (
    <header className="top-bar">
      <h1 className="brand">
        <FerryMark /> Ferry
      </h1>
      <nav className="view-tabs" aria-label="Main views">
        <button type="button" aria-pressed={view === 'tools'} onClick={() => onView('tools')}>
          Tools
        </button>
        <button type="button" aria-pressed={view === 'chat'} onClick={() => onView('chat')}>
          Chat
        </button>
      </nav>
      <div className="top-actions">
        <button
          type="button"
          id={CANVAS_TOGGLE_ID}
          className="ghost"
          onClick={props.onToggleCanvas}
          aria-pressed={props.canvasOpen}
        >
          Canvas{props.canvasCount ? ` (${props.canvasCount})` : ''}
        </button>
        <button
          type="button"
          className="ghost"
          onClick={props.onToggleTheme}
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
        >
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
      </div>
    </header>
  );
}
