// meta_data and retryable in the web app, rendered to markup: the runner's result shows meta_data
// as a folded table and offers Retry only on a failure marked retryable (not on a success or a
// cancelled call, whatever they say); the chat's tool card shows what the model read of both.
import type { ToolCallResponse } from '@ferry/contract';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ToolEntry } from '../src/chat/chat-model';
import { ToolCard } from '../src/chat/tool-card';
import { ResultView } from '../src/runner/result-view';

function response(
  status: ToolCallResponse['status'],
  extra: { isError?: boolean; retryable?: boolean; metaData?: Record<string, unknown> } = {},
): ToolCallResponse {
  const isError = extra.isError ?? status !== 'finished';
  return toolCallResponse('c1', status, {
    forModel: {
      results: isError ? { error: 'Upstream busy' } : { ok: true },
      isError,
      ...(isError
        ? { error: { code: 'E_UPSTREAM_BUSY', message: 'Upstream busy', retryable: !!extra.retryable } }
        : {}),
    },
    forUi: {
      ...(extra.retryable === undefined ? {} : { retryable: extra.retryable }),
      ...(extra.metaData ? { metaData: extra.metaData } : {}),
    },
  });
}

const render = (r: ToolCallResponse) =>
  renderToStaticMarkup(createElement(ResultView, { response: r, onOpen: () => {}, onRetry: () => {} }));

describe('the runner', () => {
  it('shows meta_data as a folded table, nested values as JSON', () => {
    const html = render(response('finished', { metaData: { source: 'sales.csv', rows: 3, by: { a: 1 } } }));
    expect(html).toContain('<details class="meta-data" data-testid="meta-data">');
    expect(html).toContain('(meta_data, 3)');
    expect(html).toContain('<th scope="row">source</th><td>sales.csv</td>');
    expect(html).toContain('<th scope="row">rows</th><td>3</td>');
    expect(html).toContain('<th scope="row">by</th><td>{&quot;a&quot;:1}</td>');
  });

  it('offers Retry on a failed call or a tool error marked retryable, and only there', () => {
    const retry = 'data-testid="retry-call"';
    expect(render(response('failed', { retryable: true }))).toContain(retry);
    const toolError = render(response('finished', { isError: true, retryable: true }));
    expect(toolError).toContain(retry);
    expect(toolError).toContain('E_UPSTREAM_BUSY · you can try again');
    expect(render(response('failed', { retryable: false }))).not.toContain(retry);
    expect(render(response('finished', { isError: true }))).not.toContain(retry);
    expect(render(response('finished', { retryable: true }))).not.toContain(retry);
    expect(render(response('cancelled', { retryable: true }))).not.toContain(retry);
    // Without a way to run it again (no onRetry), no button either.
    const without = renderToStaticMarkup(
      createElement(ResultView, { response: response('failed', { retryable: true }), onOpen: () => {} }),
    );
    expect(without).not.toContain(retry);
  });
});

describe('the chat tool card', () => {
  const entry = (content: string, error?: ToolEntry['error']): ToolEntry => ({
    kind: 'tool',
    key: 'tool-a',
    toolCallId: 'a',
    name: 'slow__flaky',
    server: 'slow',
    tool: 'flaky',
    arguments: '{}',
    status: 'finished',
    progress: null,
    notices: [],
    files: [],
    content,
    isError: error !== undefined,
    ...(error ? { error } : {}),
  });
  const card = (e: ToolEntry) =>
    renderToStaticMarkup(createElement(ToolCard, { entry: e, onOpen: () => {} }));

  it('shows the meta_data the model read, or the note that replaced it', () => {
    const html = card(entry(JSON.stringify({ status: 'finished', results: {}, meta_data: { attempt: 2 } })));
    expect(html).toContain('<th scope="row">attempt</th><td>2</td>');
    const note = 'meta_data omitted by Ferry: its JSON is 5000 bytes, over the 2048-byte cap for the model';
    expect(card(entry(JSON.stringify({ status: 'finished', results: {}, meta_data: note })))).toContain(
      `<p class="muted small">${note}</p>`,
    );
    // A result cut to the model's limit is not JSON: nothing to show, nothing breaks.
    expect(card(entry('{"status":"finished","results":"xx\n[truncated by Ferry…]'))).not.toContain(
      'meta-data',
    );
  });

  it('says when a failure may be retried', () => {
    const content = JSON.stringify({
      status: 'finished',
      results: { error: 'Upstream busy' },
      is_error: true,
      error: { code: 'E_UPSTREAM_BUSY', message: 'Upstream busy', retryable: true },
    });
    const html = card(entry(content, { code: 'E_UPSTREAM_BUSY', message: 'Upstream busy' }));
    expect(html).toContain('E_UPSTREAM_BUSY · you can try again');
  });
});
