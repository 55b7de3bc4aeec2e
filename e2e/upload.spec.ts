// Uploads: by the button and by drag and drop, with a visible, moving progress bar (the upload is
// throttled through the DevTools protocol so the bar has time to move), per-file errors, the
// normalized name, and the stored bytes compared with what was sent.
import type { Page } from '@playwright/test';
import { expect, fileRow, openApp, screenshot, sha256, test, uniqueName } from './support/fixtures';

/**
 * Throttles the page's uploads through the DevTools protocol; the function it returns sets the
 * rate in bytes per second (-1: no limit).
 */
async function uploadThrottle(page: Page): Promise<(bytesPerSecond: number) => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  return async (bytesPerSecond) => {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: bytesPerSecond,
    });
  };
}

function csv(rows: number): string {
  const lines = ['region,sales,units'];
  for (let i = 0; i < rows; i++) lines.push(`Region ${i % 7},${(i * 37) % 1000},${i % 13}`);
  return `${lines.join('\n')}\n`;
}

test('uploads a CSV with the button and shows a moving progress bar with speed', async ({
  page,
  request,
}) => {
  await openApp(page);
  const name = uniqueName('button', 'csv');
  const content = csv(60_000); // about 1.2 MB
  // 400 KB/s upload: about three seconds for this file.
  const throttle = await uploadThrottle(page);
  await throttle(400 * 1024);

  await page
    .getByTestId('upload-input')
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content) });
  const row = page.locator(`[data-testid="upload-row"][data-name="${name}"]`);
  const bar = row.getByTestId('upload-progress');
  // Partway: some bytes sent, not all, and a speed shown.
  await expect
    .poll(async () => Number(await bar.getAttribute('value')), { timeout: 15_000, intervals: [50] })
    .toBeGreaterThan(0);
  const partial = Number(await bar.getAttribute('value'));
  expect(partial).toBeLessThan(100);
  await expect(row.locator('.upload-meta')).toContainText('/s');
  await screenshot(page, 'upload-progress');

  await expect(row).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(bar).toHaveAttribute('value', '100');
  await throttle(-1);

  await expect(fileRow(page, name)).toBeVisible();
  await expect(page.getByTestId('section-uploaded').locator(`[data-name="${name}"]`)).toBeVisible();
  const list = await (await request.get(`/api/files?q=${encodeURIComponent(name)}`)).json();
  expect(list.items[0].sha256).toBe(sha256(content));
});

test('uploads several files by drag and drop, each with its own row', async ({ page, request }) => {
  await openApp(page);
  const names = [uniqueName('dropped-a', 'csv'), uniqueName('dropped-b', 'csv')];
  const contents = [csv(50), csv(80)];
  const dataTransfer = await page.evaluateHandle(
    ({ names, contents }) => {
      const transfer = new DataTransfer();
      for (const [i, name] of names.entries()) {
        transfer.items.add(new File([contents[i] ?? ''], name, { type: 'text/csv' }));
      }
      return transfer;
    },
    { names, contents },
  );
  const target = page.locator('.work');
  await target.dispatchEvent('dragenter', { dataTransfer });
  await expect(page.locator('.drop-overlay')).toBeVisible();
  await screenshot(page, 'drop-overlay');
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
  await expect(page.locator('.drop-overlay')).toBeHidden();

  for (const [i, name] of names.entries()) {
    await expect(page.locator(`[data-testid="upload-row"][data-name="${name}"]`)).toHaveAttribute(
      'data-status',
      'done',
    );
    await expect(fileRow(page, name)).toBeVisible();
    const list = await (await request.get(`/api/files?q=${encodeURIComponent(name)}`)).json();
    expect(list.items[0].sha256).toBe(sha256(contents[i] as string));
  }
});

test('shows per-file errors and the normalized name', async ({ page }) => {
  await openApp(page);
  const tooBig = uniqueName('too-big', 'bin');
  const odd = `-${uniqueName('dash', 'txt')}`;
  await page.getByTestId('upload-input').setInputFiles([
    { name: tooBig, mimeType: 'application/octet-stream', buffer: Buffer.alloc(5 * 1024 * 1024, 1) },
    { name: odd, mimeType: 'text/plain', buffer: Buffer.from('hello') },
  ]);
  const bigRow = page.locator(`[data-testid="upload-row"][data-name="${tooBig}"]`);
  await expect(bigRow).toHaveAttribute('data-status', 'error');
  await expect(bigRow.getByRole('alert')).toContainText('Too large');
  await expect(bigRow.getByRole('alert')).toContainText('4 MiB');

  const oddRow = page.locator(`[data-testid="upload-row"][data-name="${odd}"]`);
  await expect(oddRow).toHaveAttribute('data-status', 'done');
  const stored = (await oddRow.getByTestId('upload-renamed').locator('strong').textContent()) ?? '';
  expect(stored).not.toBe(odd);
  expect(stored.startsWith('-')).toBe(false);
  await expect(fileRow(page, stored)).toBeVisible();
  await screenshot(page, 'upload-errors');
});

test('cancels an upload in flight', async ({ page, request }) => {
  await openApp(page);
  const throttle = await uploadThrottle(page);
  await throttle(50 * 1024);
  const name = uniqueName('cancelled', 'csv');
  await page
    .getByTestId('upload-input')
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv(50_000)) });
  const row = page.locator(`[data-testid="upload-row"][data-name="${name}"]`);
  await expect(row).toHaveAttribute('data-status', 'uploading');
  await row.getByRole('button', { name: `Cancel upload of ${name}` }).click();
  await expect(row).toHaveAttribute('data-status', 'cancelled');
  const list = await (await request.get(`/api/files?q=${encodeURIComponent(name)}`)).json();
  expect(list.total).toBe(0);
});

test("shows the server's refusal when the browser did not know the limit", async ({ page }) => {
  // The page is told a larger limit than the server enforces, so the file is sent and refused.
  await page.route('**/api/me', async (route) => {
    const response = await route.fetch();
    const me = await response.json();
    await route.fulfill({
      response,
      json: { ...me, limits: { ...me.limits, maxFileSizeBytes: 100 * 1024 ** 2 } },
    });
  });
  await openApp(page);
  const name = uniqueName('refused', 'bin');
  await page
    .getByTestId('upload-input')
    .setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.alloc(5 * 1024 * 1024, 2) });
  const row = page.locator(`[data-testid="upload-row"][data-name="${name}"]`);
  await expect(row).toHaveAttribute('data-status', 'error');
  await expect(row.getByRole('alert')).toContainText('Too large');
  await expect(row.getByRole('alert')).toContainText('4,194,304 bytes');
});

test('uploading the same bytes again says so and adds no version', async ({ page, request }) => {
  await openApp(page);
  const name = uniqueName('same', 'csv');
  const file = { name, mimeType: 'text/csv', buffer: Buffer.from(csv(20)) };
  const rows = page.locator(`[data-testid="upload-row"][data-name="${name}"]`);
  await page.getByTestId('upload-input').setInputFiles(file);
  await expect(rows.first()).toHaveAttribute('data-status', 'done');
  await expect(rows.first()).toContainText('Uploaded');
  await page.getByTestId('upload-input').setInputFiles(file);
  // The newest upload is listed first.
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAttribute('data-status', 'done');
  const list = await (await request.get(`/api/files?q=${encodeURIComponent(name)}`)).json();
  expect(list.items).toHaveLength(1);
  const versions = await (await request.get(`/api/files/${list.items[0].id}/versions`)).json();
  expect(versions.total).toBe(1);
  await expect(rows.first()).toContainText('Already in My Files, unchanged (v1)');
  await expect(rows.last()).toContainText('Uploaded');
});
