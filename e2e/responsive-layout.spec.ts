// The layout from a phone to a wide monitor: no sideways scrolling at 390 px (My Files folds,
// the panels stack, Run is reachable), the canvas inside the screen at 1024 px whatever width it
// was given on a wider screen, and screenshots at 390, 1400 and 2560 px.
import type { Page } from '@playwright/test';
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

/** The page scrolls sideways when its scrolling element is wider than the window. */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const scroller = document.scrollingElement ?? document.documentElement;
    return scroller.scrollWidth - window.innerWidth;
  });
}

/** The element's box lies within the window (its centre is what a click would hit). */
async function expectInViewport(page: Page, locator: ReturnType<Page['locator']>) {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport) throw new Error('no box or viewport');
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

test('a 390 px phone: nothing scrolls sideways, Run is reachable, the panels stack', async ({
  page,
  request,
}) => {
  const name = uniqueName('phone-notes', 'md');
  await apiUpload(request, name, '# Phone\n\nRead on a small screen.\n');
  await page.setViewportSize({ width: 390, height: 844 });
  await openApp(page);
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  // My Files starts folded to its header: the runner is on the first screen.
  const fold = page.getByRole('button', { name: /^Show \(\d+\)$/ });
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('file-row').first()).toBeHidden();
  await page.getByTestId('server-select').selectOption('media');
  await page.getByTestId('tool-select').selectOption('make_image');
  const run = page.getByTestId('run-tool');
  await run.scrollIntoViewIfNeeded();
  await expectInViewport(page, run);
  await screenshot(page, 'phone-390-runner');
  await run.click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);

  // Unfolded, the list is there; opening a file brings the stacked canvas into view.
  await fold.click();
  await expect(page.getByRole('button', { name: 'Hide list' })).toHaveAttribute('aria-expanded', 'true');
  await expect(fileRow(page, name)).toBeVisible();
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  await screenshot(page, 'phone-390-files');
  await fileRow(page, name).locator('.file-open').click();
  const pane = page.getByTestId('canvas-pane').last();
  await expect(pane.locator('h1')).toHaveText('Phone');
  await expect(pane.locator('h1')).toBeInViewport();
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  await expectInViewport(
    page,
    page.getByRole('complementary', { name: 'Canvas' }).getByRole('button', { name: 'Hide' }),
  );
  await screenshot(page, 'phone-390-canvas');

  // Back to the top: both views' controls fit the width.
  await page.getByRole('button', { name: 'Chat' }).click();
  await expect(page.getByTestId('chat-placeholder')).toBeVisible();
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
});

test('1024 px: the canvas stays on screen even after it was made wide on a bigger one', async ({
  page,
  request,
}) => {
  const name = uniqueName('narrow-laptop', 'txt');
  await apiUpload(request, name, 'on a 1024 px screen\n');
  // A canvas width chosen on a 2560 px monitor (kept in localStorage, as the resize handle does).
  await page.addInitScript(() => localStorage.setItem('ferry.canvasWidth', '1500'));
  await page.setViewportSize({ width: 1024, height: 768 });
  await openApp(page);
  await fileRow(page, name).locator('.file-open').click();
  const canvas = page.getByRole('complementary', { name: 'Canvas' });
  await expect(canvas.getByTestId('canvas-pane').last().locator('pre')).toHaveText('on a 1024 px screen');
  const hide = canvas.getByRole('button', { name: 'Hide' });
  const download = canvas.getByRole('link', { name: 'Download' });
  await expectInViewport(page, hide);
  await expectInViewport(page, download);
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  // The middle column keeps room to work in.
  const work = await page.locator('#work').boundingBox();
  expect(work?.width ?? 0).toBeGreaterThanOrEqual(320);
  await screenshot(page, 'laptop-1024-canvas');

  const saved = page.waitForEvent('download');
  await download.click();
  expect((await saved).suggestedFilename()).toBe(name);
  await hide.click();
  await expect(canvas).toHaveCount(0);
});

test('1400 and 2560 px: three columns side by side', async ({ page, request }) => {
  const name = uniqueName('wide', 'md');
  await apiUpload(request, name, '# Wide\n\nThree columns.\n');
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page);
  await page.getByTestId('server-select').selectOption('escape');
  await page.getByTestId('tool-select').selectOption('symlink_artifact');
  await fileRow(page, name).locator('.file-open').click();
  await expect(page.getByTestId('canvas-pane').last().locator('h1')).toHaveText('Wide');
  const [files, work, canvas] = await Promise.all([
    page.getByRole('complementary', { name: 'My Files' }).boundingBox(),
    page.locator('#work').boundingBox(),
    page.getByRole('complementary', { name: 'Canvas' }).boundingBox(),
  ]);
  if (!files || !work || !canvas) throw new Error('a panel is missing');
  // Side by side, in order, within the window.
  expect(files.x + files.width).toBeLessThanOrEqual(work.x);
  expect(work.x + work.width).toBeLessThanOrEqual(canvas.x);
  expect(canvas.x + canvas.width).toBeLessThanOrEqual(1400);
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  await screenshot(page, 'desktop-1400');

  await page.setViewportSize({ width: 2560, height: 1440 });
  await expect(page.getByRole('complementary', { name: 'Canvas' })).toBeInViewport();
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  await screenshot(page, 'desktop-2560');
});
