// My Files management: live updates from outside the tab, search, sort, rename (with the
// normalized name), version history, delete, session-only marker.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('shows files stored elsewhere (CLI, another tab) without a reload', async ({ page, request }) => {
  await openApp(page);
  await expect(page.getByTestId('live-state')).toHaveText('live updates');
  const name = uniqueName('from-cli', 'txt');
  await apiUpload(request, name, 'stored by someone else');
  // Well under the 15 s fallback poll: this is the event stream at work.
  await expect(fileRow(page, name)).toBeVisible({ timeout: 10_000 });
});

test('searches, sorts, renames, shows versions and deletes', async ({ page, request }) => {
  const stem = uniqueName('ledger', 'csv').replace(/\.csv$/, '');
  const name = `${stem}.csv`;
  await apiUpload(request, name, 'v,1\n');
  await apiUpload(request, name, 'v,2\nmore,rows\n');
  const small = uniqueName('tiny', 'csv');
  await apiUpload(request, small, 'x\n');
  await openApp(page);

  // Search narrows the list to matching names.
  await page.getByLabel('Search My Files').fill(stem);
  await expect(page.getByTestId('file-row')).toHaveCount(1);
  await expect(fileRow(page, name)).toContainText('v2');
  await page.getByLabel('Search My Files').fill('');

  // Sort by size, descending: the bigger ledger comes before the tiny file.
  await page.getByLabel('Sort by').selectOption('size');
  const order = await page
    .getByTestId('file-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
  expect(order.indexOf(name)).toBeLessThan(order.indexOf(small));

  // Version history lists both versions, newest first.
  await fileRow(page, name)
    .getByRole('button', { name: `Versions of ${name}` })
    .click();
  const versions = page.getByRole('dialog', { name: `Versions of ${name}` });
  await expect(versions.getByTestId('version-row')).toHaveCount(2);
  await expect(versions.getByTestId('version-row').first()).toContainText('v2');
  await screenshot(page, 'files-versions');
  await versions.getByRole('button', { name: 'Close' }).click();

  // Rename: the dialog shows the normalized name before sending.
  await fileRow(page, name)
    .getByRole('button', { name: `Rename ${name}` })
    .click();
  const rename = page.getByRole('dialog', { name: `Rename ${name}` });
  const renamed = `${stem}-final.csv`;
  await rename.getByLabel('New name').fill(`  ${renamed}`);
  await expect(rename).toContainText(`Will be stored as ${renamed}`);
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(fileRow(page, renamed)).toBeVisible();
  await expect(fileRow(page, name)).toHaveCount(0);

  // Delete (this version); the older one remains.
  page.once('dialog', (dialog) => void dialog.accept());
  await fileRow(page, renamed)
    .getByRole('button', { name: `Delete ${renamed}` })
    .click();
  await expect(fileRow(page, renamed)).toContainText(/\d B ·/);
  await expect(fileRow(page, renamed)).not.toContainText('v2');
  const left = await (
    await request.get(`/api/files?q=${encodeURIComponent(renamed)}&allVersions=true`)
  ).json();
  expect(left.total).toBe(1);
});

test('marks session-only files', async ({ page, request }) => {
  const name = uniqueName('scratch', 'txt');
  const response = await request.post(`/api/files?name=${name}&temporary=true`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from('temporary'),
  });
  expect(response.status()).toBe(201);
  await openApp(page);
  await expect(fileRow(page, name).locator('.badge.session')).toHaveText('session');
});
