// A tool's meta_data and retryable (v2.1 §1.1, §12) in the tool runner: the report tool's facts
// as a folded table, and Retry on a failure the tool marked retryable (the slow example's flaky
// test tool fails the first call of a key, then succeeds), which runs the same call again as a new
// call. A failure that is not retryable offers no Retry.
import { apiUpload, expect, openApp, screenshot, test, uniqueName } from './support/fixtures';

test("shows the report tool's meta_data as a folded table", async ({ page, request }) => {
  const name = uniqueName('facts', 'csv');
  await apiUpload(request, name, 'region,sales\nNorth,120\nSouth,80\nEast,45\n');
  await openApp(page);
  await page.getByTestId('server-select').selectOption('report');
  await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
  await page.locator('select[data-field="filename"]').selectOption(name);
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });

  const facts = page.getByTestId('call-result').getByTestId('meta-data');
  await expect(facts).toBeVisible();
  // Folded until asked for.
  await expect(facts.locator('tr')).toHaveCount(4);
  await expect(facts.locator('table')).toBeHidden();
  await facts.getByText('Facts from the tool').click();
  await expect(facts.locator('table')).toBeVisible();
  await expect(facts.getByRole('row', { name: /^source/ })).toContainText(name);
  await expect(facts.getByRole('row', { name: /^table_rows_shown/ })).toContainText('3');
  await expect(facts.getByRole('row', { name: /^chart_bars/ })).toContainText('3');
  await expect(facts.getByRole('rowheader', { name: 'elapsed_ms' })).toBeVisible();
  // A success offers no Retry, even though the report says it may be retried.
  await expect(page.getByTestId('retry-call')).toHaveCount(0);
  await screenshot(page, 'runner-meta-data');
});

test('Retry on a retryable failure runs the same call again as a new call', async ({ page }) => {
  const key = uniqueName('flaky', 'key');
  await openApp(page);
  await page.getByTestId('server-select').selectOption('slow');
  await page.getByTestId('tool-select').selectOption('flaky');
  await page.locator('[data-field="key"]').fill(key);
  await expect(page.locator('[data-field="failures"]')).toHaveValue('1');
  await expect(page.locator('[data-field="retryable"]')).toBeChecked();
  const callIds: string[] = [];
  page.on('response', async (response) => {
    if (response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/calls') {
      callIds.push(((await response.json()) as { callId: string }).callId);
    }
  });
  await page.getByTestId('run-tool').click();

  await expect(page.getByTestId('call-status')).toHaveText('Finished with an error', { timeout: 60_000 });
  const error = page.getByTestId('call-error');
  await expect(error).toContainText('Upstream busy (failure 1 of 1)');
  await expect(error).toContainText('E_UPSTREAM_BUSY · you can try again');
  const retry = page.getByTestId('retry-call');
  await expect(retry).toBeVisible();
  await screenshot(page, 'runner-retry');
  // The form changes after the run; Retry sends what ran, not what the form now says.
  await page.locator('[data-field="key"]').fill(`${key}-edited`);
  await retry.click();

  await expect(page.getByTestId('call-status')).toHaveText('Finished', { timeout: 60_000 });
  const result = page.getByTestId('call-result');
  await expect(result).toContainText('attempt');
  await expect(page.getByTestId('retry-call')).toHaveCount(0);
  await result.getByTestId('meta-data').getByText('Facts from the tool').click();
  await expect(result.getByRole('row', { name: /^key/ })).toContainText(key);
  await expect(result.getByRole('row', { name: /^key/ })).not.toContainText('edited');
  await expect(result.getByRole('row', { name: /^attempt/ })).toContainText('2');
  await expect(result.getByRole('row', { name: /^failed_before/ })).toContainText('1');
  expect(callIds).toHaveLength(2);
  expect(callIds[0]).not.toBe(callIds[1]);
});

test('a failure the tool did not mark retryable offers no Retry', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('slow');
  await page.getByTestId('tool-select').selectOption('flaky');
  await page.locator('[data-field="key"]').fill(uniqueName('final', 'key'));
  await page.locator('[data-field="retryable"]').uncheck();
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-status')).toHaveText('Finished with an error', { timeout: 60_000 });
  await expect(page.getByTestId('call-error')).toContainText('Upstream busy (failure 1 of 1)');
  await expect(page.getByTestId('call-error')).not.toContainText('you can try again');
  await expect(page.getByTestId('retry-call')).toHaveCount(0);
});
