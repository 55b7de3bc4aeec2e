// The v2 iframe canvas in the browser (docs/canvas.md): a remote MCP server this spec runs on
// loopback (Streamable HTTP at /mcp, a dashboard page at /dash, one origin) and a Ferry of its own
// configured with it. The tool's canvas on the server's own origin is framed, credentialless and
// sandboxed, and the page receives the token by postMessage from Ferry's origin (the test reads
// what the page recorded); a canvas on another origin shows the refusal and is never loaded.
import { expect, type Page, test } from '@playwright/test';
import { type CanvasServer, startCanvasServer } from '../apps/ferry/test/support/canvas-server';
import { screenshot } from './support/fixtures';
import { type SpawnedFerry, spawnFerry } from './support/spawn-ferry';

const TOKEN = 'cap-e2e-4c8d2a9f17b3';

let dashboard: CanvasServer;
let ferry: SpawnedFerry;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  dashboard = await startCanvasServer(TOKEN);
  ferry = await spawnFerry({
    FERRY_E2E_SERVERS: JSON.stringify({ dash: { transport: 'http', url: dashboard.url } }),
  });
});
test.afterAll(async () => {
  await ferry?.stop();
  await dashboard?.close();
});

async function runOpenCanvas(page: Page, url?: string) {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  await page.getByTestId('server-select').selectOption('dash');
  await expect(page.getByTestId('tool-select')).toHaveValue('open_canvas');
  if (url) await page.locator('[data-field="url"]').fill(url);
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
}

test('frames the server’s own page, credentialless, and hands it the token by postMessage', async ({
  page,
  context,
}) => {
  // A cookie of the dashboard's site: an ordinary same-site iframe would send it along.
  await context.addCookies([{ name: 'ambient', value: 'x', domain: '127.0.0.1', path: '/' }]);
  const before = dashboard.dashRequests.length;
  await runOpenCanvas(page);

  await expect(page.getByRole('tab', { name: 'Test dashboard' })).toHaveAttribute('aria-selected', 'true');
  const iframe = page.getByTestId('canvas-pane').last().locator('iframe');
  await expect(iframe).toHaveAttribute('src', `${dashboard.origin}/dash?view=dash`);
  await expect(iframe).toHaveAttribute('sandbox', 'allow-scripts allow-forms allow-same-origin');
  await expect(iframe).toHaveAttribute('referrerpolicy', 'no-referrer');
  await expect(iframe).toHaveAttribute('allow', '');
  await expect(iframe).toHaveAttribute('credentialless', '');

  const frame = page.frameLocator('iframe.canvas-frame');
  await expect(frame.locator('#status')).toHaveText(`token ${TOKEN} for dash`);
  const received = await frame
    .locator('body')
    .evaluate(() => (window as unknown as { received: { origin: string; data: unknown }[] }).received);
  expect(received.length).toBeGreaterThan(0);
  for (const message of received) {
    expect(message).toEqual({
      origin: new URL(ferry.url).origin,
      data: { type: 'ferry:canvas-token', version: 1, canvasId: 'dash', token: TOKEN },
    });
  }
  // Loaded once, without the site's cookie (credentialless) and without a Referer.
  const requests = dashboard.dashRequests.slice(before);
  expect(requests).toHaveLength(1);
  expect(requests[0]?.cookie).toBeUndefined();
  expect(requests[0]?.referer).toBeUndefined();
  // The token stays in memory: the tabs kept for a reload do not hold it.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
  expect(stored).toContain('frame:dash');
  expect(stored).not.toContain(TOKEN);
  await screenshot(page, 'canvas-frame');

  // After a reload the tab is back and framed again once the API has allowed it again (the
  // token is gone with the page: the page has nothing to post).
  await page.reload();
  await expect(page.getByRole('tab', { name: 'Test dashboard' })).toBeVisible();
  await expect(page.frameLocator('iframe.canvas-frame').locator('#status')).toBeVisible();
  expect(dashboard.dashRequests.length - before).toBe(2);
});

test('shows why a canvas on another origin is not opened, and never loads it', async ({ page }) => {
  const before = dashboard.dashRequests.length;
  await runOpenCanvas(page, `${dashboard.otherOrigin}/dash`);
  const pane = page.getByTestId('canvas-pane').last();
  await expect(pane.getByTestId('canvas-refusal')).toHaveText(
    `Not opened: origin ${dashboard.otherOrigin} is not allowed for server dash`,
  );
  await expect(pane.locator('iframe')).toHaveCount(0);
  expect(dashboard.dashRequests.slice(before)).toHaveLength(0);
});
