// The main screen: panels, status bar with the effective modes and the sandbox warning, the chat
// placeholder, both themes.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('shows My Files, the tool runner, the status bar and the chat placeholder', async ({
  page,
  request,
}) => {
  await openApp(page);
  await expect(page.getByRole('heading', { name: 'Run a tool' })).toBeVisible();
  const status = page.locator('footer.status-bar');
  await expect(status).toContainText('dev (local mode)');
  await expect(status).toContainText('max file 4 MiB');
  await expect(status).toContainText('model: not configured');
  // The warning follows what the server reports (bubblewrap may or may not exist on this machine).
  const reported = await (await request.get('/api/status')).json();
  if (reported.sandbox.effectiveMode === 'sandboxed')
    await expect(status.locator('.sandbox-warning')).toHaveCount(0);
  else
    await expect(status.locator('.sandbox-warning')).toContainText(
      reported.sandbox.warning ?? 'without isolation',
    );
  await screenshot(page, 'main-light');

  await page.getByRole('button', { name: 'Chat' }).click();
  await expect(page.getByTestId('chat-placeholder')).toContainText('No model configured');

  await page.getByRole('button', { name: /Switch to dark theme/ }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Tools' }).click();
  await screenshot(page, 'main-dark');
});

test('warns loudly when local tools run without the sandbox', async ({ page, request }) => {
  // The machine's real mode is whatever bubblewrap allows; the unsandboxed answer is simulated.
  const real = await (await request.get('/api/status')).json();
  const warning = 'Local MCP servers run WITHOUT the sandbox (bubblewrap missing)';
  await page.route('**/api/status', (route) =>
    route.fulfill({
      json: {
        ...real,
        sandbox: { ...real.sandbox, effectiveMode: 'unsandboxed', available: false, warning },
      },
    }),
  );
  await openApp(page);
  await expect(page.locator('footer.status-bar .sandbox-warning')).toHaveText(`⚠ ${warning}`);
  await screenshot(page, 'sandbox-warning');
});

test('fits a laptop screen and is usable with the keyboard', async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const name = uniqueName('laptop', 'md');
  await apiUpload(request, name, '# Laptop\n\nA note.\n');
  await openApp(page);
  // The first Tab reaches the skip link, which jumps to the tool runner.
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to tools' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#work')).toBeFocused();
  await fileRow(page, name).locator('.file-open').click();
  await expect(page.getByTestId('canvas-pane').last().locator('h1')).toHaveText('Laptop');
  // No page-level horizontal scrolling: the panels share the width.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  await screenshot(page, 'laptop-1280');

  // The My Files splitter moves with the arrow keys.
  const splitter = page.getByRole('separator', { name: 'Resize My Files' });
  const before = Number(await splitter.getAttribute('aria-valuenow'));
  await splitter.focus();
  await page.keyboard.press('ArrowRight');
  await expect(splitter).toHaveAttribute('aria-valuenow', String(before + 20));

  // Canvas tabs follow the tabs pattern.
  await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
});
