// What the canvas shows: open tabs, the active one and, in split mode, a second pane. A pure
// reducer so the display rules (v2 §2, v2.1 §8: open_canvas, primary_file, mode, auto_open) are
// tested without a DOM.

export type CanvasMode = 'replace' | 'append' | 'split';

export interface CanvasFileItem {
  kind: 'file';
  /** The file id: opening the same file again focuses its tab. */
  key: string;
  fileId: string;
  name: string;
  mime: string;
  size: number;
  viewer: string;
}

/** What a viewer is given of a file tab. */
export type ViewedFile = Pick<CanvasFileItem, 'fileId' | 'name' | 'mime' | 'size'>;

/** The tab of a stored file, shown with `viewer`. */
export function fileTab(
  file: { id: string; name: string; mime: string; size: number },
  viewer: string,
): CanvasFileItem {
  return {
    kind: 'file',
    key: file.id,
    fileId: file.id,
    name: file.name,
    mime: file.mime,
    size: file.size,
    viewer,
  };
}

/** A tool's v2 canvas envelope as a tab (lib/canvas-frame.ts, docs/canvas.md). */
export interface CanvasFrameItem {
  kind: 'frame';
  key: string;
  url: string;
  title: string;
  /** The server whose tool returned it: the API checks the origin against its allowlist on open. */
  server?: string;
  canvasId?: string;
  callId?: string;
  /** Why the host refused to frame it; the tab shows this instead of the frame. */
  refusal?: string;
  /** The frame's capability token: in memory only, never written to storage (canvas-storage.ts). */
  token?: string;
  tokenExpiresAt?: string;
}

/**
 * An MCP App's view (apps/app-view.tsx): the `ui://` resource of the tool whose call opened it,
 * rendered through the sandbox origin. Kept for the page only, never in storage (canvas-storage.ts).
 */
export interface CanvasAppItem {
  kind: 'app';
  /** `app:<callId>`: one tab per call. */
  key: string;
  title: string;
  server: string;
  tool: string;
  resourceUri: string;
  /** What the call was given: the app's `ui/notifications/tool-input`. */
  arguments: Record<string, unknown>;
  callId: string;
}

export type CanvasItem = CanvasFileItem | CanvasFrameItem | CanvasAppItem;

export interface CanvasState {
  open: boolean;
  items: CanvasItem[];
  active: string | null;
  /** The second pane in split mode. */
  secondary: string | null;
}

export const EMPTY_CANVAS: CanvasState = { open: false, items: [], active: null, secondary: null };

export type CanvasAction =
  | { type: 'show'; items: CanvasItem[]; focus?: string; mode?: string; open?: boolean }
  | { type: 'focus'; key: string }
  | { type: 'close'; key: string }
  | { type: 'toggle'; open?: boolean }
  | { type: 'unsplit' }
  /** Tabs kept from before a reload (canvas-storage.ts), merged under what opened since. */
  | { type: 'restore'; saved: CanvasState };

function toMode(mode: string | undefined): CanvasMode {
  return mode === 'replace' || mode === 'split' ? mode : 'append';
}

export function canvasReducer(state: CanvasState, action: CanvasAction): CanvasState {
  switch (action.type) {
    case 'show': {
      if (action.items.length === 0) return action.open ? { ...state, open: true } : state;
      const focus = action.focus ?? action.items[0]?.key ?? null;
      const mode = toMode(action.mode);
      if (mode === 'replace') {
        return { open: action.open ?? true, items: dedupe(action.items), active: focus, secondary: null };
      }
      const items = dedupe([...state.items, ...action.items]);
      // Split keeps what was shown beside the new primary file.
      const secondary =
        mode === 'split' && state.active !== null && state.active !== focus ? state.active : state.secondary;
      return {
        open: action.open ?? true,
        items,
        active: focus,
        secondary: secondary === focus ? null : secondary,
      };
    }
    case 'focus':
      return state.items.some((item) => item.key === action.key)
        ? {
            ...state,
            open: true,
            active: action.key,
            secondary: state.secondary === action.key ? null : state.secondary,
          }
        : state;
    case 'close': {
      const index = state.items.findIndex((item) => item.key === action.key);
      if (index < 0) return state;
      const items = state.items.filter((item) => item.key !== action.key);
      const neighbour = items[Math.min(index, items.length - 1)]?.key ?? null;
      const secondary = state.secondary === action.key ? null : state.secondary;
      const active = state.active === action.key ? (secondary ?? neighbour) : state.active;
      return { ...state, items, active, secondary: secondary === active ? null : secondary };
    }
    case 'toggle':
      return { ...state, open: action.open ?? !state.open };
    case 'unsplit':
      return { ...state, secondary: null };
    case 'restore':
      return restoreCanvas(state, action.saved);
  }
}

/**
 * The saved tabs come first (they were open before); anything opened while they were being
 * checked stays, and stays in front.
 */
function restoreCanvas(state: CanvasState, saved: CanvasState): CanvasState {
  const items = dedupe([...saved.items, ...state.items]);
  if (items.length === 0) return state;
  const has = (key: string | null): key is string => key !== null && items.some((item) => item.key === key);
  const fresh = state.items.length > 0;
  const active =
    fresh && has(state.active) ? state.active : has(saved.active) ? saved.active : (items[0]?.key ?? null);
  const wanted = fresh ? state.secondary : saved.secondary;
  const secondary = has(wanted) && wanted !== active ? wanted : null;
  return { open: state.open || saved.open, items, active, secondary };
}

/** Later duplicates replace earlier ones in place (a new version of a file keeps its tab). */
function dedupe(items: CanvasItem[]): CanvasItem[] {
  const byKey = new Map<string, CanvasItem>();
  for (const item of items) byKey.set(item.key, item);
  return [...byKey.values()];
}

/**
 * The files of a call outcome to put on the canvas, and the one to show first: `primary_file`
 * when it names one of them, else the first showable; files are opened when open_canvas says so
 * or any file is auto_open.
 */
export function planCanvasFromOutcome(
  files: readonly { name: string; viewer: string; autoOpen: boolean; primary?: boolean }[],
  display: { openCanvas: boolean; primaryFile?: string },
): { show: boolean; primaryName: string | undefined } {
  const showable = files.filter((file) => file.viewer !== 'download');
  const primary =
    files.find((file) => file.primary) ??
    files.find((file) => display.primaryFile !== undefined && file.name === display.primaryFile) ??
    files.find((file) => file.autoOpen) ??
    showable[0];
  const show = files.length > 0 && (display.openCanvas || files.some((file) => file.autoOpen));
  return { show, primaryName: primary?.name };
}
