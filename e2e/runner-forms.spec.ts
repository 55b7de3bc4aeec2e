// Forms generated from inputSchema beyond one file: `filenames` as a multi-file picker (merge),
// a file uploaded from inside the picker ("Upload new…") and picked at once, pasting files, and
// a tool's error envelope shown as a friendly error with its suggestion.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('merges two CSVs picked with the filenames picker, one uploaded from the picker', async ({
  page,
  request,
}) => {
  const first = uniqueName('part1', 'csv');
  await apiUpload(request, first, 'city,pop\nOslo,700\n');
  const second = uniqueName('part2', 'csv');
  await openApp(page);
  await page.getByTestId('server-select').selectOption('merge');
  await expect(page.getByTestId('tool-select')).toHaveValue('merge_csv');
  await page.getByRole('checkbox', { name: new RegExp(first) }).check();
  // Upload from inside the field: stored in My Files and ticked in the picker.
  await page
    .getByTestId('upload-for-filenames')
    .setInputFiles({ name: second, mimeType: 'text/csv', buffer: Buffer.from('city,pop\nBergen,290\n') });
  await expect(page.getByRole('checkbox', { name: new RegExp(second) })).toBeChecked();
  await page.getByTestId('run-tool').click();

  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  // primary_file merged.csv opens as a table with both files' rows.
  const pane = page.getByTestId('canvas-pane').last();
  await expect(pane).toHaveAttribute('data-item', 'merged.csv');
  await expect(pane.getByTestId('table-meta')).toHaveText('2 rows × 2 columns');
  await expect(pane.locator('tbody')).toContainText('Oslo');
  await expect(pane.locator('tbody')).toContainText('Bergen');
});

test('uploads pasted files', async ({ page }) => {
  await openApp(page);
  const name = uniqueName('pasted', 'txt');
  await page.evaluate((fileName) => {
    const data = new DataTransfer();
    data.items.add(new File(['from the clipboard'], fileName, { type: 'text/plain' }));
    window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
  }, name);
  await expect(page.locator(`[data-testid="upload-row"][data-name="${name}"]`)).toHaveAttribute(
    'data-status',
    'done',
  );
  await expect(fileRow(page, name)).toBeVisible();
});

test('checks required fields before sending', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('report');
  await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
  await page.getByTestId('run-tool').click();
  await expect(page.locator('.field-error')).toHaveText('Required');
  await expect(page.locator('select[data-field="filename"]')).toBeFocused();
  await expect(page.getByTestId('call-view')).toHaveCount(0);
});

test("shows a tool's error envelope as a friendly error with its suggestion", async ({ page, request }) => {
  const name = uniqueName('empty', 'csv');
  await apiUpload(request, name, '');
  await openApp(page);
  await page.getByTestId('server-select').selectOption('report');
  await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
  await page.locator('select[data-field="filename"]').selectOption(name);
  await page.getByTestId('run-tool').click();
  const error = page.getByTestId('call-error');
  await expect(error).toContainText('Something in the input is not right');
  await expect(error).toContainText(`${name} is empty: no header row`);
  await expect(error).toContainText('Suggestion:');
  await expect(error).toContainText('E_INVALID_INPUT');
  await expect(page.getByTestId('call-status')).toHaveText('Finished with an error');
  await screenshot(page, 'runner-tool-error');
});

test('an x-mcp-file field picks only accepted files and sends the chosen one', async ({ page, request }) => {
  const csv = uniqueName('not-an-image', 'csv');
  await apiUpload(request, csv, 'a,b\n1,2\n');
  await openApp(page);
  // A PNG made by another tool (MCP image content, stored in My Files).
  await page.getByTestId('server-select').selectOption('media');
  await page.getByTestId('tool-select').selectOption('make_image');
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  const files = await (await request.get('/api/files?sort=created&order=desc&limit=5')).json();
  const png = files.items.find((f: { mime: string }) => f.mime === 'image/png');
  expect(png).toBeDefined();

  await page.getByTestId('server-select').selectOption('xfile');
  await expect(page.getByTestId('tool-select')).toHaveValue('describe_image');
  const picker = page.locator('select[data-field="image"]');
  await expect(picker).toBeVisible();
  await expect(page.getByText('Accepts image/png, image/jpeg, at most 5 MiB')).toBeVisible();
  // The list refreshes when the user's event stream says a file was stored: wait for the PNG,
  // then the (complete) list must not offer the CSV.
  await expect(picker.locator('option', { hasText: png.name })).toHaveCount(1);
  await expect(picker.locator('option', { hasText: csv })).toHaveCount(0);
  await picker.selectOption(png.id);
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await expect(page.getByTestId('call-result')).toContainText(`PNG image, ${png.size} bytes`);
});
