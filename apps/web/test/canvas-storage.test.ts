import { describe, expect, it } from 'vitest';
import { type CanvasItem, type CanvasState, canvasReducer, EMPTY_CANVAS } from '../src/lib/canvas-layout';
import { canvasStorageKey, keepItems, parseStoredCanvas, serializeCanvas } from '../src/lib/canvas-storage';
import { textTab } from './support/text-tab';

const frame: CanvasItem = { kind: 'frame', key: 'frame:dash', url: 'https://example.com/', title: 'Dash' };

const saved: CanvasState = {
  open: true,
  items: [textTab('a'), textTab('b'), frame, textTab('c')],
  active: 'b',
  secondary: 'a',
};

describe('canvas storage', () => {
  it('keys the storage per user', () => {
    expect(canvasStorageKey('alice')).not.toBe(canvasStorageKey('bob'));
  });

  it('reads back what it wrote: tabs, order, active, split pane, open', () => {
    expect(parseStoredCanvas(serializeCanvas(saved))).toEqual(saved);
  });

  it('reads nothing from missing, broken or foreign text', () => {
    for (const text of [null, '', '{', 'null', '[]', '{"v":2,"items":[]}', '{"v":1}', '"text"']) {
      expect(parseStoredCanvas(text)).toBeNull();
    }
  });

  it('skips malformed items and repairs the active and split keys', () => {
    const text = JSON.stringify({
      v: 1,
      open: true,
      items: [{ kind: 'file', key: 'x' }, textTab('a'), { kind: 'other', key: 'z' }, 42, textTab('b')],
      active: 'x',
      secondary: 'b',
    });
    expect(parseStoredCanvas(text)).toEqual({
      open: true,
      items: [textTab('a'), textTab('b')],
      active: 'a',
      secondary: 'b',
    });
  });

  it('drops items whose file is gone; the active tab and split pane move on', () => {
    const kept = keepItems(saved, (item) => item.key !== 'b' && item.key !== 'a');
    expect(kept.items.map((item) => item.key)).toEqual(['frame:dash', 'c']);
    expect(kept.active).toBe('frame:dash');
    expect(kept.secondary).toBeNull();
    expect(keepItems(saved, () => false)).toEqual(EMPTY_CANVAS);
  });
});

describe('restore action', () => {
  it('puts the saved tabs back on an untouched canvas', () => {
    expect(canvasReducer(EMPTY_CANVAS, { type: 'restore', saved })).toEqual(saved);
  });

  it('keeps what was opened while the saved tabs were checked, and its focus', () => {
    const opened = canvasReducer(EMPTY_CANVAS, {
      type: 'show',
      items: [textTab('new'), textTab('c')],
      focus: 'new',
    });
    const state = canvasReducer(opened, { type: 'restore', saved });
    expect(state.items.map((item) => item.key)).toEqual(['a', 'b', 'frame:dash', 'c', 'new']);
    expect(state.active).toBe('new');
    expect(state.open).toBe(true);
  });

  it('opens the canvas only when either side had it open', () => {
    const closed = { ...saved, open: false };
    expect(canvasReducer(EMPTY_CANVAS, { type: 'restore', saved: closed }).open).toBe(false);
  });
});
