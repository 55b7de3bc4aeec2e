// The canvas tab strip with many tabs: the active tab is never under the buttons beside the strip
// (it scrolls into view), the tablist holds tabs only (axe), Delete and the close button close a
// tab and focus moves to its neighbour, and Hide hands focus to the button that reopens the canvas.
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

/** The tab lies fully inside the visible part of the strip, clear of the buttons after it. */
async function expectTabShown(page: Page, tab: Locator) {
  const canvas = page.getByRole('complementary', { name: 'Canvas' });
  const [tabBox, stripBox, closeBox, hideBox] = await Promise.all([
    tab.boundingBox(),
    canvas.getByTestId('canvas-tab-strip').boundingBox(),
    canvas.getByTestId('canvas-tab-close').boundingBox(),
    canvas.getByRole('button', { name: 'Hide' }).boundingBox(),
  ]);
  if (!tabBox || !stripBox || !closeBox || !hideBox) throw new Error('a box is missing');
  expect(tabBox.x).toBeGreaterThanOrEqual(stripBox.x - 0.5);
  expect(tabBox.x + tabBox.width).toBeLessThanOrEqual(stripBox.x + stripBox.width + 0.5);
  expect(tabBox.x + tabBox.width).toBeLessThanOrEqual(closeBox.x + 0.5);
  expect(tabBox.x + tabBox.width).toBeLessThanOrEqual(hideBox.x + 0.5);
  // Nothing is drawn over the tab's middle: a click there reaches the tab.
  const hit = await page.evaluate(
    ([x, y]) => document.elementFromPoint(x as number, y as number)?.getAttribute('role'),
    [tabBox.x + tabBox.width / 2, tabBox.y + tabBox.height / 2],
  );
  expect(hit).toBe('tab');
}

test('six tabs: the active one is always in view, the tablist owns tabs only, keyboard closes and focus follows', async ({
  page,
  request,
}) => {
  const names = Array.from({ length: 6 }, (_, i) => uniqueName(`quarterly-figures-part-${i + 1}`, 'txt'));
  for (const [i, name] of names.entries()) await apiUpload(request, name, `part ${i + 1}\n`);
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page);
  for (const name of names) await fileRow(page, name).locator('.file-open').click();

  const tablist = page.getByRole('tablist', { name: 'Open files' });
  const tabs = tablist.getByRole('tab');
  await expect(tabs).toHaveCount(6);
  // Six tabs do not fit: the strip scrolls rather than pushing Hide away.
  const strip = page.getByTestId('canvas-tab-strip');
  expect(await strip.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  const last = page.getByRole('tab', { name: names[5] });
  await expect(last).toHaveAttribute('aria-selected', 'true');
  await expectTabShown(page, last);
  await screenshot(page, 'canvas-six-tabs');

  // Home, by keyboard: the first tab scrolls back into view.
  await last.focus();
  await page.keyboard.press('Home');
  const first = page.getByRole('tab', { name: names[0] });
  await expect(first).toBeFocused();
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expectTabShown(page, first);
  await page.keyboard.press('End');
  await expect(last).toBeFocused();
  await expectTabShown(page, last);

  // ARIA structure: only tabs inside the tablist; the close button lives outside it.
  expect(
    await tablist.evaluate((el) =>
      [...el.querySelectorAll('*')].every((n) => n.getAttribute('role') === 'tab'),
    ),
  ).toBe(true);
  await expect(tablist.getByRole('button')).toHaveCount(0);
  const axe = await new AxeBuilder({ page }).include('aside.canvas').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // Delete on the focused tab closes it; focus goes to the neighbour (the new last tab).
  await page.keyboard.press('Delete');
  await expect(tabs).toHaveCount(5);
  await expect(page.getByRole('tab', { name: names[4] })).toBeFocused();
  await expect(page.getByRole('tab', { name: names[4] })).toHaveAttribute('aria-selected', 'true');

  // The visible close button (outside the tablist) does the same for the active tab.
  await page.getByRole('tab', { name: names[2] }).click();
  await page.getByRole('button', { name: `Close ${names[2]}` }).click();
  await expect(tabs).toHaveText([names[0], names[1], names[3], names[4]] as string[]);
  await expect(page.getByRole('tab', { name: names[3] })).toBeFocused();
  await expect(page.getByRole('tab', { name: names[3] })).toHaveAttribute('aria-selected', 'true');

  // Closing them all leaves focus on the empty canvas, not on <body>.
  for (let left = 4; left > 0; left--) await page.keyboard.press('Delete');
  await expect(tabs).toHaveCount(0);
  await expect(page.locator('.canvas-empty')).toBeFocused();

  // Hide: focus goes to the top bar's Canvas button, which reopens it.
  await page.getByRole('complementary', { name: 'Canvas' }).getByRole('button', { name: 'Hide' }).click();
  const toggle = page.getByRole('button', { name: /^Canvas/ });
  await expect(page.getByRole('complementary', { name: 'Canvas' })).toHaveCount(0);
  await expect(toggle).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('complementary', { name: 'Canvas' })).toBeVisible();
});

test('a narrow canvas keeps the active tab visible and Hide clickable', async ({ page, request }) => {
  const names = Array.from({ length: 6 }, (_, i) => uniqueName(`narrow-tab-${i + 1}`, 'txt'));
  for (const [i, name] of names.entries()) await apiUpload(request, name, `narrow ${i + 1}\n`);
  await page.addInitScript(() => localStorage.setItem('ferry.canvasWidth', '1500'));
  await page.setViewportSize({ width: 1024, height: 768 });
  await openApp(page);
  for (const name of names) await fileRow(page, name).locator('.file-open').click();
  const tab = (i: number) => page.getByRole('tab', { name: names[i] });
  await expectTabShown(page, tab(5));
  // Home scrolls the strip back to the first tab; ArrowLeft from there wraps to the last.
  await tab(5).focus();
  await page.keyboard.press('Home');
  await expect(tab(0)).toHaveAttribute('aria-selected', 'true');
  await expectTabShown(page, tab(0));
  await page.keyboard.press('ArrowLeft');
  await expect(tab(5)).toHaveAttribute('aria-selected', 'true');
  await expectTabShown(page, tab(5));
  await screenshot(page, 'canvas-tabs-1024');
  await page.getByRole('complementary', { name: 'Canvas' }).getByRole('button', { name: 'Hide' }).click();
  await expect(page.getByRole('complementary', { name: 'Canvas' })).toHaveCount(0);
});
