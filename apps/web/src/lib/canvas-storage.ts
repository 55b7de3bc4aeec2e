// The canvas tabs as kept across a reload: what is written to storage and how it is read back.
// Stored per user (proxy auth may put several users in one browser) and read defensively: the
// stored text is whatever an older version or another tool left there. Pure, so it is unit-tested.
import { type CanvasFrameItem, type CanvasItem, type CanvasState, EMPTY_CANVAS } from './canvas-layout';

const VERSION = 1;

export function canvasStorageKey(username: string): string {
  return `ferry.canvas.${username}`;
}

export function serializeCanvas(state: CanvasState): string {
  // An app tab carries the call's arguments and lives as long as its frame: never stored.
  const { open, active, secondary, items: kept } = keepItems(state, (item) => item.kind !== 'app');
  // A canvas token lives as long as the page: storage would outlive it and any script could read it.
  const items = kept.map((item) => {
    if (item.kind !== 'frame') return item;
    const { token: _token, tokenExpiresAt: _expires, ...rest } = item;
    return rest;
  });
  return JSON.stringify({ v: VERSION, open, items, active, secondary });
}

const isString = (value: unknown): value is string => typeof value === 'string';

function readItem(value: unknown): CanvasItem | null {
  if (typeof value !== 'object' || value === null) return null;
  const item = value as Record<string, unknown>;
  if (!isString(item.key) || item.key === '') return null;
  if (item.kind === 'file') {
    const { fileId, name, mime, size, viewer } = item;
    if (!isString(fileId) || !isString(name) || !isString(mime) || !isString(viewer)) return null;
    if (typeof size !== 'number' || !Number.isFinite(size)) return null;
    return { kind: 'file', key: item.key, fileId, name, mime, size, viewer };
  }
  if (item.kind === 'frame') {
    const { url, title } = item;
    if (!isString(url) || !isString(title)) return null;
    const frame: CanvasFrameItem = { kind: 'frame', key: item.key, url, title };
    for (const field of ['server', 'canvasId', 'callId', 'refusal'] as const) {
      const value = item[field];
      if (isString(value)) frame[field] = value;
    }
    return frame;
  }
  return null;
}

/** The saved canvas, or null when there is none or it cannot be read. */
export function parseStoredCanvas(text: string | null): CanvasState | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const saved = raw as Record<string, unknown>;
  if (saved.v !== VERSION || !Array.isArray(saved.items)) return null;
  const items = saved.items.map(readItem).filter((item): item is CanvasItem => item !== null);
  return keepItems(
    {
      open: saved.open === true,
      items,
      active: isString(saved.active) ? saved.active : null,
      secondary: isString(saved.secondary) ? saved.secondary : null,
    },
    () => true,
  );
}

/**
 * The state with only the items `keep` accepts; the active tab and the split pane move on when
 * theirs is gone, and a canvas left with nothing is closed.
 */
export function keepItems(state: CanvasState, keep: (item: CanvasItem) => boolean): CanvasState {
  const items = state.items.filter(keep);
  if (items.length === 0) return EMPTY_CANVAS;
  const has = (key: string | null) => key !== null && items.some((item) => item.key === key);
  const active = has(state.active) ? state.active : (items[0]?.key ?? null);
  const secondary = has(state.secondary) && state.secondary !== active ? state.secondary : null;
  return { open: state.open, items, active, secondary };
}
