// Keyboard only, and focus always somewhere sensible (never <body>): upload a file through the
// Upload button (the OS picker answered by Playwright), pick a server and a tool, fill the form,
// run (focus moves to the call), answer the tool's elicitation (the dialog opens on its first
// field, closes back to the call); then the file dialogs: rename and versions close back to the
// button that opened them, a deleted file's neighbour takes the focus, a canvas tab opened and
// closed by keys leaves focus on the canvas, a cancelled elicitation returns to the call.
import type { Locator, Page } from '@playwright/test';
import { apiUpload, expect, fileRow, openApp, sha256, test, uniqueName } from './support/fixtures';

const DOC = 'title,owner\nKeyboard budget,finance\n';

/** Presses Tab (or Shift+Tab) until `target` has focus; fails after `limit` presses. */
async function tabTo(page: Page, target: Locator, { back = false, limit = 100 } = {}): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  await expect(target, `not reached with ${limit} presses`).toBeFocused();
}

/** `target` has focus, and focus is not on <body> (the failure this test guards against). */
async function expectFocus(page: Page, target: Locator, step: string): Promise<void> {
  await expect(target, step).toBeFocused();
  expect(await page.evaluate(() => document.activeElement?.localName), step).not.toBe('body');
}

/**
 * Every element that receives focus from now on, by test id, field or label, so a step that is
 * over quickly (a tool that asks at once) is still seen in order.
 */
async function recordFocus(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const trail: string[] = [];
    (window as unknown as { focusTrail: string[] }).focusTrail = trail;
    document.addEventListener('focusin', (event) => {
      const element = event.target as HTMLElement;
      trail.push(
        element.dataset.testid ??
          element.dataset.field ??
          element.getAttribute('aria-label') ??
          element.localName,
      );
    });
  });
  return () => page.evaluate(() => [...(window as unknown as { focusTrail: string[] }).focusTrail]);
}

/** Chooses an option of the focused closed <select> by typing its label (type-ahead). */
async function typeToSelect(page: Page, select: Locator, label: string, value: string): Promise<void> {
  await expect(select).toBeFocused();
  await page.keyboard.type(label);
  await expect(select).toHaveValue(value);
}

test('upload, pick, fill, run and answer an elicitation with the keyboard only', async ({ page }) => {
  const name = uniqueName('kbd-doc', 'csv');
  await openApp(page);

  // Upload: Enter on the button opens the OS picker, which Playwright answers.
  const upload = page.getByRole('button', { name: 'Upload…' });
  await tabTo(page, upload);
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Enter');
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(DOC) });
  await expect(fileRow(page, name)).toBeVisible();
  await expectFocus(page, upload, 'after the upload');

  // To the tool runner past My Files (however many files it lists): back to the skip link.
  await tabTo(page, page.getByRole('link', { name: 'Skip to tools' }), { back: true });
  await page.keyboard.press('Enter');
  await expectFocus(page, page.locator('#work'), 'after the skip link');

  // Server and tool, chosen by typing in the focused selects.
  const server = page.getByTestId('server-select');
  await tabTo(page, server);
  await typeToSelect(page, server, 'xfile', 'xfile');
  const tool = page.getByTestId('tool-select');
  await expect(tool).toBeEnabled();
  await expectFocus(page, server, 'after picking the server');
  await tabTo(page, tool);
  await typeToSelect(page, tool, 'Review', 'review_document');

  const purpose = page.locator('input[data-field="purpose"]');
  await tabTo(page, purpose);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('audit');
  await expectFocus(page, purpose, 'after filling the form');

  // Run: the button disables itself; focus moves to the call. The tool may ask at once, so
  // the order of focus is checked from a record: the call, then the dialog's first field.
  const run = page.getByTestId('run-tool');
  await tabTo(page, run);
  const focused = await recordFocus(page);
  await page.keyboard.press('Enter');
  const call = page.getByTestId('call-view');
  await expect.poll(focused, { message: 'after Run' }).toContain('call-view');

  // The tool asks: the dialog opens on its first field (the document picker), not on ×.
  const dialog = page.getByRole('dialog', { name: 'The tool needs your input' });
  await expect(dialog).toBeVisible({ timeout: 30_000 });
  const document = dialog.locator('select[data-field="document"]');
  await expectFocus(page, document, 'when the elicitation opens');
  expect(await focused(), 'focus from Run to the dialog').toEqual(['call-view', 'document']);
  const stored = await document.locator('option', { hasText: name }).getAttribute('value');
  await typeToSelect(page, document, name, stored ?? '');
  const note = dialog.locator('input[data-field="note"]');
  await tabTo(page, note);
  await page.keyboard.type('by keyboard');
  const urgent = dialog.locator('input[data-field="urgent"]');
  await tabTo(page, urgent);
  await page.keyboard.press('Space');
  await expect(urgent).toBeChecked();
  const send = dialog.getByRole('button', { name: 'Send' });
  await tabTo(page, send);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expectFocus(page, call, 'after answering the elicitation');

  await expect(call).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  const result = page.getByTestId('call-result');
  await expect(result).toContainText(sha256(DOC));
  await expect(result).toContainText('by keyboard');
  await expectFocus(page, call, 'once the result is shown');
});

test('dialogs hand focus back: rename, versions, delete, a canvas tab, a cancelled elicitation', async ({
  page,
  request,
}) => {
  const stem = uniqueName('kbd-file', 'txt').replace(/\.txt$/, '');
  const name = `${stem}.txt`;
  const neighbour = uniqueName('kbd-neighbour', 'txt');
  await apiUpload(request, neighbour, 'stays');
  await apiUpload(request, name, 'one');
  await apiUpload(request, name, 'two');
  await openApp(page);
  // Only this test's rows (and the first test's upload), newest first: the file, its neighbour.
  await page.getByLabel('Search My Files').fill('kbd-');
  await expect(page.getByTestId('file-row').filter({ hasNotText: 'kbd-' })).toHaveCount(0);

  // Rename: the dialog starts in the name field; Enter renames and closes; focus is back on the
  // same row's Rename button.
  await tabTo(page, fileRow(page, name).getByRole('button', { name: `Rename ${name}` }));
  await page.keyboard.press('Enter');
  const rename = page.getByRole('dialog', { name: `Rename ${name}` });
  await expectFocus(page, rename.getByLabel('New name'), 'when the rename dialog opens');
  const renamed = `${stem}-final.txt`;
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(renamed);
  await page.keyboard.press('Enter');
  await expect(rename).toBeHidden();
  await expect(fileRow(page, renamed)).toBeVisible();
  await expectFocus(
    page,
    fileRow(page, renamed).getByRole('button', { name: `Rename ${renamed}` }),
    'after rename',
  );

  // Versions: Escape closes, focus returns to the Versions button.
  const versionsButton = fileRow(page, renamed).getByRole('button', { name: `Versions of ${renamed}` });
  await tabTo(page, versionsButton);
  await page.keyboard.press('Enter');
  const versions = page.getByRole('dialog', { name: `Versions of ${renamed}` });
  await expect(versions.getByTestId('version-row')).toHaveCount(2);
  await page.keyboard.press('Escape');
  await expect(versions).toBeHidden();
  await expectFocus(page, versionsButton, 'after closing the versions dialog');

  // Deleting a version inside the dialog: focus stays in the dialog, on the row that took its place.
  await page.keyboard.press('Enter');
  await expect(versions.getByTestId('version-row')).toHaveCount(2);
  page.once('dialog', (confirm) => void confirm.accept());
  await tabTo(page, versions.getByRole('button', { name: 'Delete' }).last());
  await page.keyboard.press('Enter');
  await expect(versions.getByTestId('version-row')).toHaveCount(1);
  await expectFocus(page, versions.getByRole('button', { name: 'Delete' }), 'after deleting a version');
  await page.keyboard.press('Escape');
  await expect(versions).toBeHidden();
  await expectFocus(page, versionsButton, 'after the versions dialog, a version deleted');

  // Delete the file (native confirm): its row goes away, the neighbour row takes focus.
  page.once('dialog', (confirm) => void confirm.accept());
  await tabTo(page, fileRow(page, renamed).getByRole('button', { name: `Delete ${renamed}` }));
  await page.keyboard.press('Enter');
  await expect(fileRow(page, renamed)).toHaveCount(0);
  const openNeighbour = fileRow(page, neighbour).locator('.file-open');
  await expectFocus(page, openNeighbour, 'after deleting a file');

  // A canvas tab: Enter on the file opens it (focus stays on the file); Tab reaches the selected
  // tab; Delete closes it and focus lands on the emptied canvas (this context opened no other).
  await page.keyboard.press('Enter');
  const tab = page.getByRole('tab', { name: neighbour });
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expectFocus(page, openNeighbour, 'after opening a file on the canvas');
  await tabTo(page, tab);
  await page.keyboard.press('Delete');
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expectFocus(page, page.locator('.canvas-empty'), 'after closing the last canvas tab');

  // A cancelled elicitation (Escape) hands focus back to the call.
  await page.getByTestId('server-select').selectOption('xfile');
  await page.getByTestId('tool-select').selectOption('review_document');
  await tabTo(page, page.getByTestId('run-tool'));
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'The tool needs your input' });
  await expect(dialog).toBeVisible({ timeout: 30_000 });
  await expectFocus(page, dialog.locator('select[data-field="document"]'), 'when the elicitation opens');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expectFocus(page, page.getByTestId('call-view'), 'after cancelling the elicitation');
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 30_000 });
  await expect(page.getByTestId('call-result')).toContainText('cancel');
});
