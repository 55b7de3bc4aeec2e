import type { ToolCallResponse } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import {
  type CanvasState,
  canvasReducer,
  EMPTY_CANVAS,
  planCanvasFromOutcome,
} from '../src/lib/canvas-layout';
import { canvasActionForOutcome } from '../src/lib/outcome-canvas';
import { textTab } from './support/text-tab';

function show(state: CanvasState, keys: string[], mode?: string, focus?: string): CanvasState {
  return canvasReducer(state, {
    type: 'show',
    items: keys.map(textTab),
    ...(mode ? { mode } : {}),
    ...(focus ? { focus } : {}),
  });
}

describe('canvasReducer', () => {
  it('replace drops what was open; append keeps it; both focus the given item', () => {
    const first = show(EMPTY_CANVAS, ['a', 'b']);
    expect(first.open).toBe(true);
    expect(first.items.map((i) => i.key)).toEqual(['a', 'b']);
    expect(first.active).toBe('a');

    const appended = show(first, ['c'], 'append');
    expect(appended.items.map((i) => i.key)).toEqual(['a', 'b', 'c']);
    expect(appended.active).toBe('c');

    const replaced = show(appended, ['d', 'e'], 'replace', 'e');
    expect(replaced.items.map((i) => i.key)).toEqual(['d', 'e']);
    expect(replaced.active).toBe('e');
    expect(replaced.secondary).toBeNull();
  });

  it('split shows the new primary beside what was active', () => {
    const before = show(EMPTY_CANVAS, ['a']);
    const split = show(before, ['b'], 'split');
    expect(split.active).toBe('b');
    expect(split.secondary).toBe('a');
    expect(canvasReducer(split, { type: 'unsplit' }).secondary).toBeNull();
  });

  it('opening a file again keeps one tab; closing the active tab focuses a neighbour', () => {
    const state = show(show(EMPTY_CANVAS, ['a', 'b', 'c']), ['b'], 'append');
    expect(state.items.map((i) => i.key)).toEqual(['a', 'b', 'c']);
    expect(state.active).toBe('b');
    const closed = canvasReducer(state, { type: 'close', key: 'b' });
    expect(closed.items.map((i) => i.key)).toEqual(['a', 'c']);
    expect(closed.active).toBe('c');
  });

  it('an unknown mode is treated as append', () => {
    const state = show(show(EMPTY_CANVAS, ['a']), ['b'], 'sideways');
    expect(state.items).toHaveLength(2);
    expect(state.secondary).toBeNull();
  });
});

describe('planCanvasFromOutcome', () => {
  const files = [
    { name: 'data.csv', viewer: 'csv', autoOpen: false },
    { name: 'report.html', viewer: 'html', autoOpen: false },
    { name: 'blob.bin', viewer: 'download', autoOpen: false },
  ];

  it('uses primary_file when it names a file, else the first showable one', () => {
    expect(planCanvasFromOutcome(files, { openCanvas: true, primaryFile: 'report.html' })).toEqual({
      show: true,
      primaryName: 'report.html',
    });
    expect(planCanvasFromOutcome(files, { openCanvas: true, primaryFile: 'missing.txt' }).primaryName).toBe(
      'data.csv',
    );
  });

  it('opens only when open_canvas says so or a file is auto_open', () => {
    expect(planCanvasFromOutcome(files, { openCanvas: false }).show).toBe(false);
    const auto = files.map((f) => (f.name === 'blob.bin' ? { ...f, autoOpen: true } : f));
    expect(planCanvasFromOutcome(auto, { openCanvas: false })).toEqual({
      show: true,
      primaryName: 'blob.bin',
    });
  });
});

describe('canvasActionForOutcome', () => {
  const response = (forUi: Partial<ToolCallResponse['forUi']>): ToolCallResponse => ({
    callId: 'c',
    status: 'finished',
    forModel: { results: {}, files: [], isError: false },
    forUi: {
      display: { openCanvas: true, storageAction: 'store' },
      files: [],
      rejected: [],
      unstored: [],
      warnings: [],
      ...forUi,
    },
  });
  const uiFile = (id: string, name: string) => ({
    id,
    name,
    mime: 'text/plain',
    size: 1,
    viewer: 'text',
    autoOpen: false,
    deferred: false,
    temporary: false,
  });

  it('focuses the primary file and passes the mode through', () => {
    const action = canvasActionForOutcome(
      response({
        display: { openCanvas: true, primaryFile: 'b.txt', mode: 'split', storageAction: 'store' },
        files: [uiFile('1', 'a.txt'), uiFile('2', 'b.txt')],
      }),
    );
    expect(action).toMatchObject({ type: 'show', focus: '2', mode: 'split' });
  });

  it('adds a v2 iframe canvas envelope as a frame tab', () => {
    const action = canvasActionForOutcome(
      response({
        display: { openCanvas: false, storageAction: 'store' },
        canvas: {
          id: 'dash',
          url: 'https://tool.example/view',
          type: 'iframe',
          open: true,
          persistence: 'session',
          title: 'Metrics',
          server: 'tool',
          origin: 'https://tool.example',
          allowed: true,
        },
      }),
    );
    expect(action).toMatchObject({ type: 'show', focus: 'frame:dash' });
    if (action?.type !== 'show') throw new Error('expected show');
    expect(action.items[0]).toEqual({
      kind: 'frame',
      key: 'frame:dash',
      url: 'https://tool.example/view',
      title: 'Metrics',
      server: 'tool',
      canvasId: 'dash',
      callId: 'c',
    });
  });

  it('does nothing when there is nothing to show', () => {
    expect(
      canvasActionForOutcome(response({ display: { openCanvas: false, storageAction: 'store' } })),
    ).toBeNull();
  });
});
