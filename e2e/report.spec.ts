// The report tool from the runner: the form hides the injected username, picks the CSV from My
// Files, runs; the HTML report opens (primary_file) in a sandboxed iframe that cannot reach the
// page around it, the PNG chart opens in the image viewer, the deferred notes.md is listed.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\nWest,99\n';

test('runs csv_report and shows the HTML report sandboxed and the chart as an image', async ({
  page,
  request,
}) => {
  const name = uniqueName('sales', 'csv');
  await apiUpload(request, name, CSV);
  await openApp(page);

  await page.getByTestId('server-select').selectOption('report');
  await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
  // username is filled by Ferry: no field for it, but a note.
  await expect(page.locator('[data-field="username"]')).toHaveCount(0);
  await expect(page.getByText('Filled in by Ferry: username')).toBeVisible();
  await page.locator('select[data-field="filename"]').selectOption(name);
  await page.locator('input[data-field="title"]').fill('Quarterly sales');
  await screenshot(page, 'runner-form');
  await page.getByTestId('run-tool').click();

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await expect(page.getByTestId('call-result')).toContainText('Quarterly sales: 4 rows, 2 columns');

  // primary_file: report.html is the active canvas pane, in an iframe with allow-scripts only.
  const pane = page.getByTestId('canvas-pane').last();
  await expect(pane).toHaveAttribute('data-item', 'report.html');
  const iframe = pane.locator('iframe.html-frame');
  await expect(iframe).toHaveAttribute('sandbox', 'allow-scripts');
  const frame = page.frameLocator('iframe.html-frame');
  await expect(frame.locator('body')).toContainText('North');
  await screenshot(page, 'report-html');

  // Inside the frame: an opaque origin, so cookies and the parent's DOM are out of reach.
  const handle = await iframe.elementHandle();
  const content = await handle?.contentFrame();
  if (!content) throw new Error('no frame');
  const probe = await content.evaluate(() => {
    const attempt = (read: () => unknown) => {
      try {
        read();
        return 'readable';
      } catch (error) {
        return (error as Error).name;
      }
    };
    return {
      cookie: attempt(() => document.cookie),
      parent: attempt(() => window.parent.document.body.innerHTML),
      storage: attempt(() => window.localStorage.length),
      origin: window.origin,
    };
  });
  expect(probe.cookie).toBe('SecurityError');
  expect(probe.parent).toBe('SecurityError');
  expect(probe.storage).toBe('SecurityError');
  expect(probe.origin).toBe('null');

  // The chart from the result's file chips, in the image viewer, decoded at its real size.
  await page
    .getByRole('list', { name: 'Files from this call' })
    .getByRole('button', { name: /chart\.png/ })
    .click();
  await expect(page.getByTestId('canvas-pane').last()).toHaveAttribute('data-item', 'chart.png');
  const image = page.getByTestId('canvas-pane').last().locator('img');
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(640);
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect(page.getByTestId('zoom-level')).toHaveText('150 %');
  await screenshot(page, 'report-chart');

  // Generated and deferred files reached My Files without a reload.
  await expect(
    page.getByTestId('section-generated').locator('[data-name="report.html"]').first(),
  ).toBeVisible();
  const notes = page.getByTestId('section-deferred').locator('[data-name="notes.md"]').first();
  await expect(notes).toBeVisible();
  await expect(notes).toContainText(/expires in/);

  // The deferred markdown draft renders as markdown.
  await notes.locator('.file-open').click();
  await expect(
    page.getByTestId('canvas-pane').last().locator('.markdown-body h1, .markdown-body h2').first(),
  ).toBeVisible();
  await expect(fileRow(page, name)).toBeVisible();
  await screenshot(page, 'report-notes');
  await page.getByRole('button', { name: /Switch to dark theme/ }).click();
  await page.getByRole('tab', { name: 'report.html' }).click();
  await expect(page.frameLocator('iframe.html-frame').locator('body')).toContainText('North');
  await screenshot(page, 'report-dark');
});
