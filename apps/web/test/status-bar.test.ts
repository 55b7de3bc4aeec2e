// The status bar shows the server's warnings themselves (a tool server that cannot start), not
// only a count behind a tooltip.

import type { StatusDto } from '@ferry/contract';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StatusBar } from '../src/components/status-bar';

const status = (warnings: string[]): StatusDto => ({
  username: 'dev',
  version: '0.1.0',
  storage: 'local disk',
  catalog: 'SQLite',
  auth: 'local',
  llm: 'not configured',
  sandbox: { mode: 'auto', effectiveMode: 'sandboxed', available: true, summary: 'auto: sandboxed' },
  warnings,
});

const render = (warnings: string[]) =>
  renderToStaticMarkup(
    createElement(StatusBar, { me: null, status: status(warnings), servers: [], stream: 'live' }),
  );

describe('StatusBar', () => {
  it('shows a warning, and every one of several in the list it opens', () => {
    const typo = 'MCP server "typo" cannot start: command "nodee" was not found in PATH';
    const nope = 'MCP server "nope" cannot start: script /srv/nope.ts does not exist';
    expect(render([typo])).toContain(`⚠ ${typo.replaceAll('"', '&quot;')}`);
    const both = render([typo, nope]);
    expect(both).toContain('2 warnings: ');
    expect(both).toContain(`<li>${nope.replaceAll('"', '&quot;')}</li>`);
    expect(render([])).not.toContain('status-warnings');
  });
});
