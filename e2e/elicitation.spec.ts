// Elicitation with a file (SEP-2356 x-mcp-file in requestedSchema): xfile › review_document asks
// mid-call for a document; the dialog shows a file picker (from My Files) and the other fields,
// the answer goes to POST /api/calls/:id/elicitations/:elicitationId with the file's My Files id,
// the host sends it to the tool as a data URI, and the tool reports the bytes it received.
import {
  apiUpload,
  askForReview,
  expect,
  openApp,
  screenshot,
  sha256,
  test,
  uniqueName,
} from './support/fixtures';

const DOC = 'title,owner\nBudget 2027,finance\n';

test('answers an elicitation with a file from My Files', async ({ page, request }) => {
  const name = uniqueName('budget', 'csv');
  const stored = await apiUpload(request, name, DOC);
  await openApp(page);
  const dialog = await askForReview(page, 'audit');
  await expect(dialog).toContainText('Which document should I use for the audit?');
  // The picker lists accepted files only (text/csv, text/plain) and takes My Files ids.
  const picker = dialog.locator('select[data-field="document"]');
  await picker.selectOption(stored.id);
  await dialog.locator('input[data-field="note"]').fill('first pass');
  await dialog.locator('input[data-field="urgent"]').check();
  await screenshot(page, 'elicitation-dialog');
  await dialog.getByRole('button', { name: 'Send' }).click();
  await expect(dialog).toBeHidden();

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  const result = page.getByTestId('call-result');
  await expect(result).toContainText(sha256(DOC));
  await expect(result).toContainText('title,owner');
  await expect(result).toContainText('first pass');
});

test('declining an elicitation reaches the tool', async ({ page }) => {
  await openApp(page);
  const dialog = await askForReview(page);
  await dialog.getByRole('button', { name: 'Decline' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  await expect(page.getByTestId('call-result')).toContainText('decline');
});
