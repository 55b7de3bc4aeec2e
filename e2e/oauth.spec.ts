// OAuth for remote MCP servers in the browser (docs/oauth.md): a loopback authorization server and
// the MCP server it protects, run by this spec (@ferry/test-helpers/oauth-servers), and a Ferry of
// its own configured with that server as "crm". The browser really goes the whole way: Connect →
// Ferry's start route → the authorization server (which approves or declines at once, redirecting)
// → Ferry's callback → back in the web app, which says how it went and takes the outcome off the
// address. Then tools run with the user's token; Disconnect revokes it and Connect is back.
import { resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import {
  type ProtectedMcpServer,
  type ProtectedRemote,
  startProtectedRemote,
  type TestOAuthServer,
} from '@ferry/test-helpers/oauth-servers';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { screenshot } from './support/fixtures';
import { type SpawnedFerry, spawnFerry } from './support/spawn-ferry';

let remote: ProtectedRemote;
let as: TestOAuthServer;
let mcp: ProtectedMcpServer;
let ferry: SpawnedFerry;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  remote = await startProtectedRemote();
  ({ as, mcp } = remote);
  ferry = await spawnFerry({
    FERRY_E2E_SERVERS: JSON.stringify({ crm: { transport: 'http', url: mcp.url } }),
  });
});
test.afterAll(async () => {
  await ferry?.stop();
  await remote?.close();
});

test.beforeEach(async ({ request }) => {
  as.decision = 'approve';
  // Every test starts unconnected.
  const response = await request.delete(`${ferry.url}/api/oauth/crm`);
  expect(response.status()).toBe(200);
});

/** No serious axe violation (as accessibility.spec.ts checks the main screens). */
async function expectAccessible(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious')
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  expect(serious, `axe on ${screen}`).toEqual([]);
}

/** The crm server's connection as GET /api/oauth tells it. */
async function connectionState(page: Page): Promise<string | undefined> {
  const response = await page.request.get(`${ferry.url}/api/oauth`);
  const list = (await response.json()) as { items: { server: string; state: string }[] };
  return list.items.find((item) => item.server === 'crm')?.state;
}

async function openCrm(page: Page): Promise<void> {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  await page.getByTestId('server-select').selectOption('crm');
}

/** Clicks Connect (in `scope`) and waits until the browser is back in Ferry with the outcome shown. */
async function connect(page: Page, outcome: 'connected' | 'declined', scope: Locator = page.locator('body')) {
  const authorizeRequests = as.events.filter((event) => event.endpoint === 'authorize').length;
  await scope.getByRole('link', { name: 'Connect crm' }).click();
  const notice = page.getByTestId('oauth-notice');
  await expect(notice).toHaveAttribute('data-outcome', outcome);
  // The browser went through the authorization server, and the outcome left the address.
  expect(as.events.filter((event) => event.endpoint === 'authorize').length).toBe(authorizeRequests + 1);
  await expect(page).toHaveURL(`${ferry.url}/`);
  // The server it was about is the one picked in the runner.
  await expect(page.getByTestId('server-select')).toHaveValue('crm');
}

async function run(page: Page, tool: string): Promise<void> {
  await page.getByTestId('tool-select').selectOption(tool);
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).not.toHaveAttribute('data-status', /starting|running/);
}

test('connect from the tool list, run a tool with the token, disconnect, Connect again', async ({ page }) => {
  await openCrm(page);
  const prompt = page.getByTestId('connect-prompt');
  await expect(prompt).toContainText('crm needs you to connect your account');
  await expect(page.getByTestId('tool-select')).toBeDisabled();
  await screenshot(page, 'oauth-connect-prompt');
  await expectAccessible(page, 'the Connect prompt');
  await prompt.screenshot({
    path: resolve(import.meta.dirname, '../test-results/screenshots/oauth-connect-prompt-detail.png'),
  });

  await connect(page, 'connected');
  await expect(page.getByTestId('oauth-notice')).toHaveText(/Connected crm with your account\./);
  await screenshot(page, 'oauth-connected');
  await expectAccessible(page, 'the connected notice');
  expect(await connectionState(page)).toBe('connected');
  await expect(page.getByTestId('connect-prompt')).toHaveCount(0);
  await expect(page.getByTestId('server-connection')).toContainText(
    'Connected to crm with your account (mcp)',
  );

  await run(page, 'whoami');
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished');
  await expect(page.getByTestId('call-result')).toContainText(/client client-[0-9a-f-]+/);
  const token = mcp.bearers.at(-1) as string;
  expect(as.verify(token)).toBeDefined();

  // The outcome message goes when dismissed.
  await page.getByTestId('oauth-notice').getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByTestId('oauth-notice')).toHaveCount(0);

  await page.getByRole('button', { name: 'Disconnect crm' }).click();
  await expect(page.getByRole('link', { name: 'Connect crm' })).toBeVisible();
  // Focus moves to Connect, the control that replaced Disconnect.
  await expect(page.getByRole('link', { name: 'Connect crm' })).toBeFocused();
  await expect(page.getByTestId('server-connection')).toHaveCount(0);
  expect(as.verify(token)).toBeUndefined();
  expect(await connectionState(page)).not.toBe('connected');
});

test('a call that needs the user shows Connect in its result, also for more access (step-up)', async ({
  page,
}) => {
  // The tools are listed from before (the first test): only a call finds out the token is gone.
  await openCrm(page);
  await expect(page.getByTestId('tool-select')).toBeEnabled();
  await run(page, 'whoami');
  const callView = page.getByTestId('call-view');
  await expect(callView).toHaveAttribute('data-status', 'failed');
  await expect(callView.getByTestId('call-error')).toContainText('E_AUTH_REQUIRED');
  await expect(callView.getByTestId('connect-prompt')).toContainText('crm needs you to connect your account');
  await expect(callView.getByTestId('retry-call')).toHaveCount(0);
  await connect(page, 'connected', callView);
  await run(page, 'whoami');
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished');

  await run(page, 'admin');
  // The server wants the admin scope the token lacks: E_AUTH_REQUIRED naming the scope.
  await expect(callView).toHaveAttribute('data-status', 'failed');
  await expect(callView.getByTestId('call-error')).toContainText('E_AUTH_REQUIRED');
  await expect(callView.getByTestId('connect-prompt')).toContainText('(access asked for: mcp admin)');
  // Still connected with what was granted: Disconnect stays available.
  await expect(page.getByRole('button', { name: 'Disconnect crm' })).toBeVisible();
  await screenshot(page, 'oauth-call-connect-prompt');
  await expectAccessible(page, 'a call asking to connect');

  await connect(page, 'connected', callView);
  await expect(page.getByTestId('server-connection')).toContainText('(mcp admin)');
  await run(page, 'admin');
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished');
  await expect(page.getByTestId('call-result')).toContainText('admin ok');
});

test('declined at the authorization server: "declined" is shown and the server stays unconnected', async ({
  page,
}) => {
  const tokenRequests = as.events.filter((event) => event.endpoint === 'token').length;
  // The dark theme here (the other tests run light): the notice's colours are checked in both.
  await page.addInitScript(() => localStorage.setItem('ferry.theme', 'dark'));
  await openCrm(page);
  await run(page, 'whoami');
  const callView = page.getByTestId('call-view');
  await expect(callView).toHaveAttribute('data-status', 'failed');
  as.decision = 'deny';
  await connect(page, 'declined', callView);
  await expect(page.getByTestId('oauth-notice')).toHaveText(/Not connected: access to crm was declined\./);
  // The runner offers Connect again; nothing says connected.
  await expect(page.getByRole('link', { name: 'Connect crm' })).toBeVisible();
  await expect(page.getByTestId('server-connection')).toHaveCount(0);
  await screenshot(page, 'oauth-declined');
  await expectAccessible(page, 'the declined notice (dark)');
  expect(await connectionState(page)).toBe('needs-connect');
  // No token was issued for the attempt.
  expect(as.events.filter((event) => event.endpoint === 'token').length).toBe(tokenRequests);
});
