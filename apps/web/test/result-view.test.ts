// A result stored as a file because it was too large for the model: the runner shows its beginning
// and an action that opens the file, not the preview object as a tree; other results stay a tree.
import type { ToolCallResponse, UiFile } from '@ferry/contract';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ResultView } from '../src/runner/result-view';

const FILE: UiFile = {
  id: 'f1',
  name: 'big_json-result-1a2b3c4d.json',
  mime: 'application/json',
  size: 5_000_000,
  viewer: 'json',
  autoOpen: false,
  deferred: false,
  temporary: false,
  fullResult: true,
};

const response = (results: unknown, files: UiFile[]): ToolCallResponse => ({
  callId: 'c1',
  status: 'finished',
  forModel: { results, files: files.map(({ name }) => ({ name })), isError: false },
  forUi: {
    display: { openCanvas: false, storageAction: 'store' },
    files,
    rejected: [],
    unstored: [],
    warnings: [],
  },
});

const render = (r: ToolCallResponse) =>
  renderToStaticMarkup(createElement(ResultView, { response: r, onOpen: () => {} }));

describe('ResultView', () => {
  it('shows the beginning of a result stored as a file and an action that opens it', () => {
    const html = render(
      response({ note: 'too large', file: FILE.name, bytes: FILE.size, preview: '{"rows":[{"id":0}' }, [
        FILE,
      ]),
    );
    expect(html).toContain('data-testid="full-result"');
    expect(html).toContain('>Open full result</button>');
    expect(html).toContain(`<strong>${FILE.name}</strong>`);
    expect(html).toContain('{&quot;rows&quot;:[{&quot;id&quot;:0}…</pre>');
    expect(html).not.toContain('json-key');
  });

  it('shows any other result as a tree', () => {
    const html = render(response({ total: 3 }, [{ ...FILE, fullResult: undefined, name: 'report.json' }]));
    expect(html).not.toContain('full-result');
    expect(html).toContain('json-key');
  });
});
