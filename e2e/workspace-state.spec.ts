// State that must outlive a change of view or a reload: the tool runner's form and last result
// across Tools → Chat → Tools, and the canvas tabs (with the active one) across a reload, less
// the tabs whose file was deleted meanwhile.
import { apiUpload, expect, fileRow, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('the runner keeps its form and its last result across a visit to the chat', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('legacy');
  await page.getByTestId('tool-select').selectOption('make_v2_artifacts');
  const text = page.locator('[data-field="text"]');
  await text.fill('kept across views');
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await expect(page.getByTestId('call-result')).toBeVisible();
  // Edited after the run: the form's current values must survive too, not only the last call's.
  await text.fill('edited after the run');

  await page.getByRole('button', { name: 'Chat' }).click();
  await expect(page.getByTestId('chat-placeholder')).toBeVisible();
  await expect(page.getByTestId('run-tool')).toBeHidden();
  await page.getByRole('button', { name: 'Tools' }).click();

  await expect(page.getByTestId('server-select')).toHaveValue('legacy');
  await expect(page.getByTestId('tool-select')).toHaveValue('make_v2_artifacts');
  await expect(text).toHaveValue('edited after the run');
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished');
  await expect(page.getByTestId('call-view')).toContainText('legacy › make_v2_artifacts');
  await expect(page.getByTestId('call-result')).toBeVisible();
});

test('canvas tabs and the active one survive a reload; a deleted file’s tab is dropped quietly', async ({
  page,
  request,
}) => {
  const names = [uniqueName('keep-a', 'txt'), uniqueName('keep-b', 'md'), uniqueName('gone-c', 'txt')];
  const stored = [
    await apiUpload(request, names[0] as string, 'first tab\n'),
    await apiUpload(request, names[1] as string, '# Second\n\nThe active one.\n'),
    await apiUpload(request, names[2] as string, 'deleted before the reload\n'),
  ];
  await openApp(page);
  for (const name of names) await fileRow(page, name).locator('.file-open').click();
  const tabs = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');
  await expect(tabs).toHaveText(names);
  await page.getByRole('tab', { name: names[1] }).click();
  await expect(page.getByRole('tab', { name: names[1] })).toHaveAttribute('aria-selected', 'true');

  await page.reload();
  await expect(tabs).toHaveText(names);
  await expect(page.getByRole('tab', { name: names[1] })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('canvas-pane').last().locator('h1')).toHaveText('Second');

  // The third file goes away behind the page's back (the CLI, another tab).
  const deleted = await request.delete(`/api/files/${stored[2]?.id}`);
  expect(deleted.status()).toBe(200);
  // The active tab is the one that goes: the canvas falls back to a remaining tab.
  await page.getByRole('tab', { name: names[2] }).click();
  await page.reload();
  await expect(tabs).toHaveText(names.slice(0, 2));
  await expect(page.getByRole('tab', { selected: true })).toHaveText(names[0] as string);
  await expect(page.getByTestId('canvas-pane')).toHaveCount(1);
  await expect(page.getByTestId('canvas-pane').locator('pre')).toHaveText('first tab');
  // Quietly: no toast, no error in the canvas.
  await expect(page.locator('.toast')).toHaveCount(0);
  await expect(page.locator('.viewer-error')).toHaveCount(0);
  await screenshot(page, 'canvas-after-reload');

  // A tab closed before a reload stays closed.
  await page.getByRole('tab', { name: names[0] }).click();
  await page.getByRole('button', { name: `Close ${names[0]}` }).click();
  await expect(tabs).toHaveText([names[1] as string]);
  await page.reload();
  await expect(tabs).toHaveText([names[1] as string]);
});
