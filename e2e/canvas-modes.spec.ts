// Display hints from real tools: `mode: replace` clears the canvas and opens primary_file (legacy
// › make_v2_artifacts, inline base64 artifacts); MCP audio content plays in the audio viewer.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

async function runTool(page: import('@playwright/test').Page, server: string, tool: string) {
  await page.getByTestId('server-select').selectOption(server);
  await page.getByTestId('tool-select').selectOption(tool);
}

test('mode replace swaps the canvas for the new files and focuses primary_file', async ({
  page,
  request,
}) => {
  const earlier = uniqueName('earlier', 'txt');
  await apiUpload(request, earlier, 'opened before the tool ran');
  await openApp(page);
  await fileRow(page, earlier).locator('.file-open').click();
  await expect(page.getByRole('tab', { name: earlier })).toBeVisible();

  await runTool(page, 'legacy', 'make_v2_artifacts');
  await page.locator('[data-field="text"]').fill('hello brave new world');
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });

  const tabs = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');
  await expect(tabs).toHaveText(['text.txt', 'text.html']);
  await expect(page.getByRole('tab', { name: 'text.html' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.frameLocator('iframe.html-frame').locator('p')).toHaveText('4 words');
  await screenshot(page, 'canvas-replace');

  // The other tab, by keyboard: arrow keys move along the tabs.
  await page.getByRole('tab', { name: 'text.html' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'text.txt' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('canvas-pane').last().locator('pre')).toHaveText('hello brave new world');
});

test('plays MCP audio content in the audio viewer', async ({ page }) => {
  await openApp(page);
  await runTool(page, 'media', 'make_audio');
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await page.getByRole('list', { name: 'Files from this call' }).getByRole('button').first().click();
  const audio = page.getByTestId('canvas-pane').last().locator('audio');
  await expect(audio).toHaveAttribute('controls', '');
  // The browser decoded the WAV: a quarter of a second.
  await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeCloseTo(0.25, 1);
});

test('shows the notification as a toast, honours split, and refuses a v2 canvas on Ferry’s own origin', async ({
  page,
  ferry,
}) => {
  // No example tool sends these hints, so the call's outcome is amended on its way to the page.
  const dashboard = `${ferry}/api/openapi.json`;
  await page.route('**/api/calls/*', async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch();
    const call = await response.json();
    if (call.response) {
      call.response.forUi.display = {
        ...call.response.forUi.display,
        mode: 'split',
        notification: 'Two files saved',
      };
      // Marked allowed, as if the host had been told so: the page still refuses Ferry's own origin.
      call.response.forUi.canvas = {
        id: 'dash',
        type: 'iframe',
        url: dashboard,
        open: false,
        title: 'Dashboard',
        server: 'legacy',
        origin: new URL(ferry).origin,
        allowed: true,
      };
    }
    await route.fulfill({ response, json: call });
  });
  const before = uniqueName('before', 'txt');
  await openApp(page);
  await page
    .getByTestId('upload-input')
    .setInputFiles({ name: before, mimeType: 'text/plain', buffer: Buffer.from('x') });
  await fileRow(page, before).locator('.file-open').click();

  await runTool(page, 'legacy', 'make_v2_artifacts');
  await page.locator('[data-field="text"]').fill('split me');
  await page.getByTestId('run-tool').click();
  await expect(page.getByRole('status').filter({ hasText: 'Two files saved' })).toBeVisible();

  // Split: the file that was open stays beside the new primary file.
  const panes = page.getByTestId('canvas-pane');
  await expect(panes).toHaveCount(2);
  await expect(panes.first()).toHaveAttribute('data-item', before);
  await expect(panes.last()).toHaveAttribute('data-item', 'text.html');
  await screenshot(page, 'canvas-split');

  // The envelope is a tab of its own; a frame of Ferry's own origin is never opened
  // (e2e/canvas-frames.spec.ts frames an allowed one).
  await page.getByRole('tab', { name: 'Dashboard' }).click();
  await expect(panes.last().getByTestId('canvas-refusal')).toHaveText(
    `Not opened: origin ${new URL(ferry).origin} is Ferry's own`,
  );
  await expect(panes.last().locator('iframe')).toHaveCount(0);
});
