// A tool that answers with a task (MCP tasks extension): the web app shows the task's status
// messages as the call's progress, its cancel button sends tasks/cancel (the server's own record
// says so), and a task that completes stores its file like any call.
import { expect, openApp, screenshot, test } from './support/fixtures';

async function runTool(page: import('@playwright/test').Page, tool: string, fields: Record<string, string>) {
  await page.getByTestId('server-select').selectOption('tasks');
  await page.getByTestId('tool-select').selectOption(tool);
  for (const [name, value] of Object.entries(fields)) {
    await page.locator(`input[data-field="${name}"]`).fill(value);
  }
  await page.getByTestId('run-tool').click();
}

test("shows a task's progress and cancels it with tasks/cancel", async ({ page }) => {
  await openApp(page);
  await runTool(page, 'render_report', { title: 'Quarterly', seconds: '60', steps: '60' });

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'running');
  await expect(page.getByTestId('progress-message')).toContainText(/step [2-9]\/60/, { timeout: 20_000 });
  await screenshot(page, 'task-progress');

  await call.getByRole('button', { name: 'Cancel' }).click();
  await expect(call).toHaveAttribute('data-status', 'cancelled', { timeout: 20_000 });

  // The server's own record of the task: it received the cancel and stopped.
  await runTool(page, 'task_record', {});
  const result = page.getByTestId('call-result');
  await expect(result).toContainText('cancels: 1', { timeout: 20_000 });
  await expect(result).toContainText('status: "cancelled"');
});

test('stores the file of a task that completes', async ({ page }) => {
  await openApp(page);
  await runTool(page, 'render_report', { title: 'Short', seconds: '1', steps: '2' });
  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'finished', { timeout: 20_000 });
  await expect(call).toContainText('task-report.md');
});
