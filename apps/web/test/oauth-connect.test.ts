// Connecting a remote MCP server from the web app (docs/oauth.md), rendered to markup: a call that
// failed with E_AUTH_REQUIRED shows "Connect <server>" (runner result and chat tool card, folded
// or not) instead of Retry, linking Ferry's start route with the page to come back to; the return
// (?oauth=connected|declined&server=…) is read and taken off the address.
import type { ToolCallResponse } from '@ferry/contract';
import { toolCallResponse } from '@ferry/test-helpers/tool-responses';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolEntry } from '../src/chat/chat-model';
import { ToolCard } from '../src/chat/tool-card';
import { ResultView } from '../src/runner/result-view';
import { authRequiredOf, oauthStartPath } from '../src/servers/auth-required';
import { OAuthReturnNotice } from '../src/servers/connect-prompt';
import { readOAuthReturn, withoutOAuthReturn } from '../src/servers/oauth-return';

const MESSAGE = 'MCP server "crm eu" needs you to connect your account: open /api/oauth/crm%20eu/start';

/** As Ferry answers a call that failed with E_AUTH_REQUIRED (seen from a real run). */
function authRequired(details: Record<string, unknown>): ToolCallResponse {
  return toolCallResponse('c1', 'failed', {
    forModel: {
      results: { error: MESSAGE },
      isError: true,
      error: { code: 'E_AUTH_REQUIRED', message: MESSAGE, retryable: true },
    },
    forUi: {
      retryable: true,
      error: {
        results: { error: MESSAGE },
        meta_data: {
          is_error: true,
          reason: 'AuthorizationRequired',
          error_code: 'E_AUTH_REQUIRED',
          details,
          retryable: true,
        },
      },
    },
  });
}

beforeEach(() => {
  vi.stubGlobal('window', { location: { pathname: '/', search: '?view=x&oauth=declined&server=crm' } });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const render = (r: ToolCallResponse) =>
  renderToStaticMarkup(
    createElement(ResultView, { response: r, server: 'crm eu', onOpen: () => {}, onRetry: () => {} }),
  );

describe('a call that needs the user to connect', () => {
  it('reads the server, its start route and the scope from the error details', () => {
    expect(
      authRequiredOf(
        authRequired({ server: 'crm eu', connectUrl: '/api/oauth/crm%20eu/start', scope: 'mcp admin' }),
        'x',
      ),
    ).toEqual({ server: 'crm eu', connectUrl: '/api/oauth/crm%20eu/start', scope: 'mcp admin' });
    // Without details: the call's server and Ferry's start route for it.
    expect(authRequiredOf(authRequired({}), 'crm eu')).toEqual({
      server: 'crm eu',
      connectUrl: oauthStartPath('crm eu'),
    });
    // A connect URL that is not Ferry's own start route is not followed.
    expect(authRequiredOf(authRequired({ connectUrl: 'https://evil.example/x' }), 'crm')?.connectUrl).toBe(
      '/api/oauth/crm/start',
    );
    const other = toolCallResponse('c2', 'failed', {
      forModel: {
        results: {},
        isError: true,
        error: { code: 'E_TIMEOUT', message: 'slow', retryable: true },
      },
    });
    expect(authRequiredOf(other, 'crm')).toBeUndefined();
  });

  it('the runner shows Connect <server> with the way back, instead of Retry', () => {
    const html = render(
      authRequired({ server: 'crm eu', connectUrl: '/api/oauth/crm%20eu/start', scope: 'mcp admin' }),
    );
    expect(html).toContain('data-testid="call-error"');
    expect(html).toContain('data-testid="connect-prompt"');
    // Back to this page without the previous outcome.
    expect(html).toContain('href="/api/oauth/crm%20eu/start?returnTo=%2F%3Fview%3Dx"');
    expect(html).toContain('>Connect crm eu</a>');
    expect(html).toContain('(access asked for: mcp admin)');
    expect(html).not.toContain('data-testid="retry-call"');
  });

  it('the chat tool card shows Connect outside the folded details', () => {
    const entry: ToolEntry = {
      kind: 'tool',
      key: 't1',
      toolCallId: 't1',
      name: 'crm_eu__whoami',
      server: 'crm eu',
      tool: 'whoami',
      arguments: '{}',
      status: 'failed',
      progress: null,
      notices: [],
      files: [],
      isError: true,
      error: { code: 'E_AUTH_REQUIRED', message: MESSAGE },
    };
    const html = renderToStaticMarkup(createElement(ToolCard, { entry, onOpen: () => {} }));
    const afterDetails = html.slice(html.indexOf('</details>'));
    expect(afterDetails).toContain('href="/api/oauth/crm%20eu/start?returnTo=%2F%3Fview%3Dx"');
    expect(afterDetails).toContain('>Connect crm eu</a>');
    const failed = renderToStaticMarkup(
      createElement(ToolCard, {
        entry: { ...entry, error: { code: 'E_TIMEOUT', message: 'slow' } },
        onOpen: () => {},
      }),
    );
    expect(failed).not.toContain('connect-prompt');
  });
});

describe('the return from the authorization server', () => {
  it('is read from the query and taken off it, leaving the rest', () => {
    expect(readOAuthReturn('?oauth=connected&server=crm%20eu')).toEqual({
      outcome: 'connected',
      server: 'crm eu',
    });
    expect(readOAuthReturn('?oauth=declined&server=crm')).toEqual({ outcome: 'declined', server: 'crm' });
    expect(readOAuthReturn('?oauth=maybe&server=crm')).toBeNull();
    expect(readOAuthReturn('?oauth=connected')).toBeNull();
    expect(readOAuthReturn('')).toBeNull();
    expect(withoutOAuthReturn('?oauth=connected&server=crm')).toBe('');
    expect(withoutOAuthReturn('?a=1&oauth=connected&server=crm&b=2')).toBe('?a=1&b=2');
  });

  it('says connected or declined, as a status with a named dismiss button', () => {
    const notice = (outcome: 'connected' | 'declined') =>
      renderToStaticMarkup(
        createElement(OAuthReturnNotice, { result: { outcome, server: 'crm' }, onDismiss: () => {} }),
      );
    expect(notice('connected')).toContain('role="status"');
    expect(notice('connected')).toContain('Connected <strong>crm</strong> with your account.');
    expect(notice('declined')).toContain('Not connected: access to <strong>crm</strong> was declined.');
    expect(notice('declined')).toContain('aria-label="Dismiss"');
  });
});
