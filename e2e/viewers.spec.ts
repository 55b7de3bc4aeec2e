// Canvas viewers on files from My Files: PDF pages with pdf.js, a 100k-row CSV virtualized,
// markdown sanitized, JSON as a tree, code highlighted, and a download compared byte for byte.
import { readFile } from 'node:fs/promises';
import {
  apiUpload,
  expect,
  fileRow,
  openApp,
  screenshot,
  sha256,
  test,
  uniqueName,
} from './support/fixtures';
import { makePdf } from './support/make-pdf';

function pane(page: import('@playwright/test').Page) {
  return page.getByTestId('canvas-pane').last();
}

test('opens a PDF with pdf.js and pages through it', async ({ page, request }) => {
  const name = uniqueName('brochure', 'pdf');
  await apiUpload(request, name, makePdf(['First page of the brochure', 'Second page']));
  await openApp(page);
  await fileRow(page, name).locator('.file-open').click();
  await expect(pane(page)).toHaveAttribute('data-item', name);
  await expect(page.getByTestId('pdf-page-count')).toHaveText('of 2');
  const canvas = pane(page).locator('.pdf-stage canvas');
  await expect(canvas).toHaveAttribute('aria-label', `${name}, page 1 of 2`);
  // Something was drawn: the canvas is not one flat colour.
  await expect
    .poll(() =>
      canvas.evaluate((c: HTMLCanvasElement) => {
        const data =
          c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 128) dark++;
        return dark;
      }),
    )
    .toBeGreaterThan(100);
  await screenshot(page, 'viewer-pdf');
  await pane(page).getByRole('button', { name: 'Next ›' }).click();
  await expect(canvas).toHaveAttribute('aria-label', `${name}, page 2 of 2`);
});

test('shows a 100k-row CSV as a virtualized table', async ({ page, request }) => {
  const lines = ['id,name,value'];
  for (let i = 1; i <= 100_000; i++) lines.push(`${i},row ${i},${i * 3}`);
  const name = uniqueName('big', 'csv');
  await apiUpload(request, name, `${lines.join('\n')}\n`);
  await openApp(page);
  await fileRow(page, name).locator('.file-open').click();
  await expect(page.getByTestId('table-meta')).toHaveText('100,000 rows × 3 columns');
  const rows = pane(page).locator('tbody tr');
  // Only what is in view (plus overscan) is in the DOM.
  expect(await rows.count()).toBeLessThan(120);
  await expect(pane(page).locator('thead th').nth(1)).toHaveText('id');
  await pane(page)
    .locator('.table-scroll')
    .evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
  await expect(pane(page).locator('tbody tr td:nth-child(3)', { hasText: /^row 100000$/ })).toBeVisible();
  expect(await rows.count()).toBeLessThan(120);
  await screenshot(page, 'viewer-csv');
});

test('renders markdown sanitized, JSON as a tree and code highlighted', async ({ page, request }) => {
  const md = uniqueName('notes', 'md');
  await apiUpload(
    request,
    md,
    '# Title here\n\nSome *text*.\n\n<img src=x onerror="window.__xss = 1">\n<script>window.__xss = 2</script>\n',
  );
  const json = uniqueName('data', 'json');
  await apiUpload(request, json, JSON.stringify({ answer: 42, list: [1, 2, 3], nested: { ok: true } }));
  const code = uniqueName('script', 'py');
  await apiUpload(request, code, 'def hello(name):\n    return f"hi {name}"\n');
  await openApp(page);

  await fileRow(page, md).locator('.file-open').click();
  await expect(pane(page).locator('.markdown-body h1')).toHaveText('Title here');
  await expect(pane(page).locator('.markdown-body script')).toHaveCount(0);
  await expect(pane(page).locator('.markdown-body img')).not.toHaveAttribute('onerror');
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();

  await fileRow(page, json).locator('.file-open').click();
  await expect(pane(page).locator('.json-tree')).toContainText('answer');
  await expect(pane(page).locator('.json-number').first()).toHaveText('42');

  await fileRow(page, code).locator('.file-open').click();
  await expect(pane(page).locator('code.hljs .hljs-keyword').first()).toHaveText('def');
  await screenshot(page, 'viewer-code');
});

test('downloads a file byte for byte', async ({ page, request }) => {
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
  const name = uniqueName('blob', 'bin');
  const stored = await apiUpload(request, name, bytes);
  await openApp(page);
  const download = page.waitForEvent('download');
  await fileRow(page, name)
    .getByRole('link', { name: `Download ${name}` })
    .click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(name);
  const path = await file.path();
  const received = await readFile(path);
  expect(received.length).toBe(bytes.length);
  expect(sha256(received)).toBe(sha256(bytes));
  expect(stored.sha256).toBe(sha256(bytes));
});
