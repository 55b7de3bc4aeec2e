// Which calls open an MCP App tab, and that such a tab (it holds the call's arguments) is never
// written to the stored canvas.
import { describe, expect, it } from 'vitest';
import { appTabFor } from '../../src/apps/app-tab';
import { canvasReducer, EMPTY_CANVAS } from '../../src/lib/canvas-layout';
import { parseStoredCanvas, serializeCanvas } from '../../src/lib/canvas-storage';

const chart = {
  name: 'show_csv_chart',
  title: 'CSV chart',
  ui: { resourceUri: 'ui://csv/chart', visibility: ['model', 'app'] as ('model' | 'app')[] },
};

describe('appTabFor', () => {
  it('is a tab per call for a tool with a view, nothing for one without', () => {
    expect(appTabFor(chart, 'c1', { server: 'csv', arguments: { filename: 'a.csv' } })).toEqual({
      kind: 'app',
      key: 'app:c1',
      title: 'CSV chart',
      server: 'csv',
      tool: 'show_csv_chart',
      resourceUri: 'ui://csv/chart',
      arguments: { filename: 'a.csv' },
      callId: 'c1',
    });
    expect(appTabFor({ name: 'plain' }, 'c2', { server: 'csv' })).toBeNull();
    expect(appTabFor({ name: 'app_only', ui: { visibility: ['app'] } }, 'c3', { server: 'csv' })).toBeNull();
    expect(appTabFor(undefined, 'c4', { server: 'csv' })).toBeNull();
  });

  it('is never stored with the canvas', () => {
    const tab = appTabFor(chart, 'c1', { server: 'csv', arguments: { secret: 'arg-7' } });
    if (!tab) throw new Error('no tab');
    const file = {
      kind: 'file' as const,
      key: 'f1',
      fileId: 'f1',
      name: 'a.csv',
      mime: 'text/csv',
      size: 3,
      viewer: 'csv',
    };
    const state = canvasReducer(EMPTY_CANVAS, { type: 'show', items: [file, tab], focus: tab.key });
    const stored = serializeCanvas(state);
    expect(stored).not.toContain('arg-7');
    expect(stored).not.toContain('app:c1');
    expect(parseStoredCanvas(stored)).toMatchObject({ items: [{ key: 'f1' }], active: 'f1' });
  });
});
