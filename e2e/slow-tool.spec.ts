// Slow tools: a live progress bar that can be cancelled, and a silent tool whose "still running"
// notices arrive in order before the timeout. The e2e Ferry runs the slow server with its
// timeout scaled from 30 s to 6 s, so the notices come at 3, 4 and 5 s (support/start-ferry.ts).
import { TIMEOUT_MESSAGE, TIMEOUT_NOTICES } from '@ferry/contract';
import { expect, openApp, screenshot, test } from './support/fixtures';

const SCALE = 6 / 30;

test('shows live progress of slow_task and cancels it', async ({ page, request }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('slow');
  await expect(page.getByTestId('tool-select')).toHaveValue('slow_task');
  await page.locator('input[data-field="seconds"]').fill('60');
  await page.locator('input[data-field="steps"]').fill('60');
  await page.getByTestId('run-tool').click();

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('progress-message')).toContainText(/step [2-9]\/60/, { timeout: 20_000 });
  const bar = page.getByTestId('call-progress');
  await expect.poll(async () => Number(await bar.getAttribute('value'))).toBeGreaterThan(0);
  await screenshot(page, 'slow-progress');

  await call.getByRole('button', { name: 'Cancel' }).click();
  await expect(call).toHaveAttribute('data-status', 'cancelled', { timeout: 20_000 });
  await expect(page.getByTestId('call-status')).toHaveText('Cancelled');

  const calls = await (await request.get('/api/calls')).json();
  const latest = calls.items.find((c: { tool: string }) => c.tool === 'slow_task');
  expect(latest.status).toBe('cancelled');
});

test('shows the timeout notices in order, then the timeout error with its suggestion', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('slow');
  await page.getByTestId('tool-select').selectOption('hang');
  await page.getByTestId('run-tool').click();
  const started = Date.now();

  const notices = page.getByTestId('notice');
  await expect(notices).toHaveCount(3, { timeout: 20_000 });
  const texts = await notices.allTextContents();
  TIMEOUT_NOTICES.forEach((notice, index) => {
    expect(texts[index]).toContain(notice.message);
    expect(texts[index]).toContain(`${notice.afterSeconds * SCALE} s`);
  });
  await screenshot(page, 'slow-notices');

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
  // Not before the scaled timeout.
  expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
  const error = page.getByTestId('call-error');
  await expect(error).toContainText('The tool took too long');
  await expect(error).toContainText('E_TIMEOUT');
  await expect(call).toContainText(TIMEOUT_MESSAGE.slice(0, 40));
  await screenshot(page, 'slow-timeout');
});
