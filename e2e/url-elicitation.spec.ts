// URL-mode elicitation in the browser (SEP-1036): signin › link_account asks the user to open the
// server's own sign-in page. The dialog names the server, gives its reason and the full URL with the
// host set apart; nothing opens or loads the link until the user clicks it, and then only in a new
// tab with no opener and no referrer. Declining reaches the server (the first test, on the shared
// Ferry). Opening it (the second) needs the page reachable from the browser, so that test runs
// the server itself over Streamable HTTP on loopback, outside any sandbox, for a Ferry of its own.

import {
  type HttpServerProcess,
  startHttp,
  type TempDir,
  tempDir,
} from '@ferry/test-helpers/example-servers';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, screenshot, test } from './support/fixtures';
import { type SpawnedFerry, spawnFerry } from './support/spawn-ferry';

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/signin\/[\w-]{22}$/;
const REASON = 'Sign in to Example Cloud to link it to your account.';

/** Pages the context opened and requests it made to a sign-in page, from now on. */
function watch(context: BrowserContext) {
  const opened: Page[] = [];
  const signinRequests: string[] = [];
  context.on('page', (page) => opened.push(page));
  context.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/signin/')) signinRequests.push(request.url());
  });
  return { opened, signinRequests };
}

/** Runs link_account of `server` and returns the dialog and the link it shows, checked. */
async function askLink(page: Page, server: string) {
  await page.getByTestId('server-select').selectOption(server);
  await page.getByTestId('tool-select').selectOption('link_account');
  await page.getByTestId('run-tool').click();
  const dialog = page.getByRole('dialog', { name: 'The tool asks you to open a link' });
  await expect(dialog).toBeVisible({ timeout: 30_000 });
  await expect(dialog.getByTestId('elicitation-server')).toHaveText(server);
  await expect(dialog.getByTestId('elicitation-reason')).toHaveText(REASON);
  const url = (await dialog.getByTestId('elicitation-url').textContent()) ?? '';
  expect(url).toMatch(LINK);
  await expect(dialog.getByTestId('elicitation-host')).toHaveText('127.0.0.1');
  const open = dialog.getByRole('link', { name: 'Open link in a new tab' });
  await expect(open).toHaveAttribute('href', url);
  await expect(open).toHaveAttribute('target', '_blank');
  await expect(open).toHaveAttribute('rel', 'noopener noreferrer');
  // Focus starts on a button, not on the link: Enter alone never opens it.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  return { dialog, url, open };
}

test('URL elicitation shown and declined', async ({ page, context }) => {
  await page.goto('/');
  await expect(page.getByTestId('server-select')).not.toHaveValue('');
  const seen = watch(context);
  const { dialog } = await askLink(page, 'signin');
  await screenshot(page, 'url-elicitation-dialog');
  // Shown, not opened, not fetched.
  expect(seen.opened).toEqual([]);
  expect(seen.signinRequests).toEqual([]);

  await dialog.getByRole('button', { name: 'Decline' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  const result = page.getByTestId('call-result');
  await expect(result).toContainText('decline');
  await expect(result).not.toContainText('accept');
  expect(seen.opened).toEqual([]);
  expect(seen.signinRequests).toEqual([]);
});

test.describe('URL elicitation opened', () => {
  let root: TempDir;
  let signin: HttpServerProcess;
  let ferry: SpawnedFerry;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    root = await tempDir();
    signin = await startHttp('signin', root.path);
    ferry = await spawnFerry({
      FERRY_E2E_SERVERS: JSON.stringify({ 'signin-http': { transport: 'http', url: signin.url.href } }),
    });
  });
  test.afterAll(async () => {
    await ferry?.stop();
    await signin?.stop();
    await root?.cleanup();
  });

  test('one click opens the link in a new tab without an opener, and the server sees the sign-in', async ({
    page,
    context,
  }) => {
    await page.goto(`${ferry.url}/`);
    await expect(page.getByTestId('server-select')).not.toHaveValue('');
    const seen = watch(context);
    const { dialog, url, open } = await askLink(page, 'signin-http');
    expect(seen.opened).toEqual([]);
    expect(seen.signinRequests).toEqual([]);

    const popup = context.waitForEvent('page');
    await open.click();
    const tab = await popup;
    await tab.waitForLoadState();
    expect(tab.url()).toBe(url);
    await expect(tab.getByRole('heading')).toHaveText('Signed in to Example Cloud');
    // noopener: the sign-in page cannot reach back into Ferry's tab.
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    expect(seen.signinRequests).toEqual([url]);

    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', {
      timeout: 30_000,
    });
    const result = page.getByTestId('call-result');
    await expect(result).toContainText('accept');
    await expect(result).toContainText('linked');
    await expect(result).not.toContainText('decline');
    await tab.close();
  });
});
