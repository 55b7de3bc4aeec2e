// A link question during `ferry call` (URL-mode elicitation), through the real app and the signin
// example's `link_account`: the CLI prints "<server> asks you to open <url>: <reason>" with the
// site, never opens the link, and sends what the user says (opened it, decline, cancel); --no-input
// and the end of input decline. The test plays the user's browser by fetching the printed link.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_PROMPT } from '../../src/cli/elicitation-link.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { exampleServers, startTestApp, type TestApp } from '../support/start-app.js';
import { ferry, startFerry } from './run-ferry.js';

const SLOW = 120_000;
const HEADLINE =
  /signin asks you to open (http:\/\/127\.0\.0\.1:\d+\/signin\/[\w-]{22}): Sign in to Acme Drive to link it to your account\./;
const LINK = ['--json', 'call', 'signin', 'link_account', '--arg', 'service=Acme Drive'];

let t: TestApp;
let work: string;

beforeAll(async () => {
  const all = await exampleServers();
  t = await startTestApp({ servers: { signin: all.signin } });
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-link-'));
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

function resultsOf(stdout: string): Record<string, unknown> {
  return (JSON.parse(stdout) as { response: { forModel: { results: Record<string, unknown> } } }).response
    .forModel.results;
}

describe('ferry call: the tool asks you to open a link', () => {
  it(
    'prints who asks, the full link and its site; "y" after opening it links the account',
    async () => {
      const run = startFerry(t.url, LINK, { cwd: work });
      const shown = await run.waitForStderr(new RegExp(`${HEADLINE.source}[\\s\\S]*Did you open it`));
      expect(shown).toContain(
        'site: 127.0.0.1. Open the link in your browser yourself; Ferry does not open it.',
      );
      const url = HEADLINE.exec(shown)?.[1] as string;
      // The user opens it in their browser, then answers.
      expect((await fetch(url)).status).toBe(200);
      run.end('maybe\ny\n');
      const result = await run.done;
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain('! answer y or n');
      expect(result.stderr).toContain('told the server you opened the link');
      expect(resultsOf(result.stdout)).toEqual({
        service: 'Acme Drive',
        action: 'accept',
        linked: true,
        visits: 1,
      });
    },
    SLOW,
  );

  it(
    '"n" declines, !cancel cancels, the end of input declines; the link was never visited',
    async () => {
      for (const [input, action] of [
        ['n\n', 'decline'],
        ['!cancel\n', 'cancel'],
        ['', 'decline'],
      ] as const) {
        const result = await ferry(t.url, LINK, { cwd: work, input });
        expect(result.code, result.stderr).toBe(EXIT.ok);
        expect(result.stderr).toMatch(HEADLINE);
        expect(result.stderr).toContain(LINK_PROMPT);
        expect(result.stderr).toContain(action === 'cancel' ? '  cancelled' : '  declined');
        expect(resultsOf(result.stdout)).toEqual({ service: 'Acme Drive', action, linked: false, visits: 0 });
      }
    },
    SLOW,
  );

  it(
    '--no-input declines without asking, and still prints the link',
    async () => {
      const result = await ferry(t.url, [...LINK, '--no-input'], { cwd: work });
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toMatch(new RegExp(`question declined \\(--no-input\\): ${HEADLINE.source}`));
      expect(result.stderr).not.toContain(LINK_PROMPT);
      expect(resultsOf(result.stdout)).toEqual({
        service: 'Acme Drive',
        action: 'decline',
        linked: false,
        visits: 0,
      });
    },
    SLOW,
  );
});
