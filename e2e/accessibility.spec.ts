// axe-core on every main screen, in the light and the dark theme: My Files with files, the rename
// and versions dialogs, the tool runner with a form, a result, the canvas with each kind of
// viewer, the elicitation dialog, chat without a model and (with a scripted model, as in
// chat.spec.ts) a chat turn with a tool card. Any critical or serious violation fails, listed with
// the elements it was found on. What a tool's own HTML report contains (the sandboxed iframe) is
// the tool's, not Ferry's, and is left out.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { Result } from 'axe-core';
import { useFerryWithModel } from './support/ferry-with-model';
import { apiUpload, askForReview, expect, fileRow, openApp, test, uniqueName } from './support/fixtures';
import { makePdf } from './support/make-pdf';

const THEMES = ['light', 'dark'] as const;
const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\nWest,99\n';

/** A violation as the failure message shows it: the rule and the first elements it was found on. */
function summarize(violation: Result): { rule: string; nodes: string[] } {
  return {
    rule: `${violation.id} (${violation.impact}): ${violation.help}`,
    nodes: violation.nodes.slice(0, 5).map((node) => `${node.target.join(' ')}: ${node.failureSummary}`),
  };
}

async function expectAccessible(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).exclude('iframe.html-frame').analyze();
  const serious = results.violations.filter(
    (violation) => violation.impact === 'critical' || violation.impact === 'serious',
  );
  expect(serious.map(summarize), `axe on ${screen}`).toEqual([]);
}

/** Theme chosen by the user (the toggle's stored choice), applied before the app starts. */
async function useTheme(page: Page, theme: (typeof THEMES)[number]): Promise<void> {
  await page.addInitScript((value) => localStorage.setItem('ferry.theme', value), theme);
}

for (const theme of THEMES) {
  test(`main screens have no serious axe violations (${theme})`, async ({ page, request }) => {
    test.setTimeout(180_000);
    const csv = uniqueName(`a11y-${theme}`, 'csv');
    await apiUpload(request, csv, CSV);
    const files = {
      // Long enough to scroll: a scrolling box must be reachable by keyboard.
      md: await apiUpload(
        request,
        uniqueName('a11y-notes', 'md'),
        `# Notes\n\nSome *text* and \`code\`.\n\n\`\`\`\n${'wide '.repeat(100)}\n\`\`\`\n\n${'A paragraph.\n\n'.repeat(80)}`,
      ),
      table: await apiUpload(
        request,
        uniqueName('a11y-table', 'csv'),
        `n,square\n${Array.from({ length: 300 }, (_, i) => `${i},${i * i}`).join('\n')}\n`,
      ),
      json: await apiUpload(request, uniqueName('a11y-data', 'json'), '{"answer":42,"list":[1,2]}'),
      code: await apiUpload(request, uniqueName('a11y-script', 'py'), 'def hi():\n    return 1\n'),
      pdf: await apiUpload(request, uniqueName('a11y-doc', 'pdf'), makePdf(['Page one'])),
      bin: await apiUpload(request, uniqueName('a11y-blob', 'bin'), Buffer.from([0, 1, 2, 3])),
    };
    const session = uniqueName('a11y-scratch', 'txt');
    await request.post(`/api/files?name=${session}&temporary=true`, {
      headers: { 'content-type': 'application/octet-stream' },
      data: Buffer.from('temporary'),
    });
    await useTheme(page, theme);
    await openApp(page);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await expect(fileRow(page, session)).toBeVisible();
    await expectAccessible(page, `My Files (${theme})`);

    await fileRow(page, csv)
      .getByRole('button', { name: `Rename ${csv}` })
      .click();
    const rename = page.getByRole('dialog', { name: `Rename ${csv}` });
    await rename.getByLabel('New name').fill(`  ${csv}`);
    await expect(rename).toContainText('Will be stored as');
    await expectAccessible(page, `the rename dialog (${theme})`);
    await rename.getByRole('button', { name: 'Cancel' }).click();
    await expect(rename).toBeHidden();

    await fileRow(page, csv)
      .getByRole('button', { name: `Versions of ${csv}` })
      .click();
    const versions = page.getByRole('dialog', { name: `Versions of ${csv}` });
    await expect(versions.getByTestId('version-row')).toHaveCount(1);
    await expectAccessible(page, `the versions dialog (${theme})`);
    await versions.getByRole('button', { name: 'Close' }).click();

    await page.getByTestId('server-select').selectOption('report');
    await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
    await page.locator('select[data-field="filename"]').selectOption(csv);
    await page.locator('input[data-field="title"]').fill('Accessible sales');
    await expectAccessible(page, `the tool runner form (${theme})`);

    await page.getByTestId('run-tool').click();
    await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', {
      timeout: 60_000,
    });
    await expect(page.getByTestId('canvas-pane').last()).toHaveAttribute('data-item', 'report.html');
    await expectAccessible(page, `a result with the HTML report on the canvas (${theme})`);

    // Each viewer on the canvas: table, markdown, JSON, code, PDF, download card, image.
    const viewers: [string, string][] = [
      [files.table.name, 'table'],
      [files.md.name, '.markdown-body h1'],
      [files.json.name, '.json-tree'],
      [files.code.name, 'code.hljs'],
      [files.pdf.name, 'canvas'],
      [files.bin.name, 'a[download]'],
    ];
    for (const [name, ready] of viewers) {
      await fileRow(page, name).locator('.file-open').click();
      const pane = page.getByTestId('canvas-pane').last();
      await expect(pane).toHaveAttribute('data-item', name);
      await expect(pane.locator(ready).first()).toBeVisible();
      await expectAccessible(page, `the canvas with ${name} (${theme})`);
    }
    await page
      .getByRole('tab', { name: /\.png$/ })
      .first()
      .click();
    await expect(page.getByTestId('canvas-pane').last().locator('img')).toBeVisible();
    await expectAccessible(page, `the canvas with an image (${theme})`);

    const elicitation = await askForReview(page, 'audit');
    await expectAccessible(page, `the elicitation dialog (${theme})`);
    await elicitation.getByRole('button', { name: 'Cancel' }).click();
    await expect(elicitation).toBeHidden();
    await expect(page.getByTestId('call-view')).not.toHaveAttribute('data-status', /running|starting/);
    await expectAccessible(page, `an elicitation answered with cancel (${theme})`);

    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await expect(page.getByTestId('chat-placeholder')).toContainText('No model configured');
    await expectAccessible(page, `chat without a model (${theme})`);
  });
}

test.describe('chat with a model', () => {
  const ferry = useFerryWithModel();

  for (const theme of THEMES) {
    test(`a chat turn with a tool card has no serious axe violations (${theme})`, async ({ page }) => {
      const name = uniqueName(`a11y-chat-${theme}`, 'csv');
      ferry.model.play([
        {
          text: ['Running the report on ', `${name}.`],
          toolCalls: [
            { id: 'call-1', name: 'report__csv_report', arguments: { filename: name, title: 'Chat sales' } },
          ],
        },
        { text: ['The report ', 'is ready: **report.html** shows 4 regions.\n\n- North\n- South'] },
      ]);
      await useTheme(page, theme);
      await page.goto(`${ferry.url}/`);
      await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await expect(page.getByTestId('chat')).toBeVisible();
      await expectAccessible(page, `chat, empty (${theme})`);

      await page
        .getByTestId('upload-input')
        .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(CSV) });
      await expect(fileRow(page, name)).toBeVisible();
      const input = page.getByLabel('Message');
      await input.fill(`Make a report of ${name}`);
      await input.press('Enter');
      await expect(page.getByTestId('chat-assistant').last()).toContainText('shows 4 regions');
      await expect(page.getByTestId('chat-tool')).toHaveAttribute('data-status', 'finished');
      await page.getByTestId('chat-tool').locator('summary').first().click();
      await expect(page.getByTestId('chat-input')).toBeEnabled();
      await expectAccessible(page, `a chat turn (${theme})`);
    });
  }
});
