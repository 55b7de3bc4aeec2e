// Text from tool servers as people should read it: a tool's description as sanitized inline
// markdown (`code` as code, links in a new tab, HTML never run), and a deferred draft's single
// state badge ("draft · expires in …") in My Files.
import { apiUpload, expect, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('a tool description renders its markdown: code, no backticks', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('server-select').selectOption('escape');
  await page.getByTestId('tool-select').selectOption('symlink_artifact');
  // The real description: "Creates a symlink … that points at `target` (usually outside it) …"
  const description = page.locator('.runner .tool-description');
  await expect(description.locator('code')).toHaveText('target');
  await expect(description).toContainText('points at target (usually outside it)');
  await expect(description).not.toContainText('`');
});

test('HTML in a description is never run, links open in a new tab', async ({ page }) => {
  // A hostile server's description, put into the real tools list on its way to the page.
  const hostile = [
    'Reads `path` and [the docs](https://example.com/docs).',
    '<script>window.__descriptionScript = true</script>',
    '<img src="x" onerror="window.__descriptionImage = true">',
    '[click](javascript:window.__descriptionLink=true)',
  ].join(' ');
  await page.route('**/api/servers/escape/tools', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { items: { name: string; description?: string }[] };
    for (const tool of body.items) if (tool.name === 'artifact_path') tool.description = hostile;
    await route.fulfill({ response, json: body });
  });
  await openApp(page);
  await page.getByTestId('server-select').selectOption('escape');
  await page.getByTestId('tool-select').selectOption('artifact_path');
  const description = page.locator('.runner .tool-description');
  await expect(description.locator('code')).toHaveText('path');
  const docs = description.getByRole('link', { name: 'the docs' });
  await expect(docs).toHaveAttribute('href', 'https://example.com/docs');
  await expect(docs).toHaveAttribute('target', '_blank');
  await expect(docs).toHaveAttribute('rel', /\bnoopener\b/);
  // Nothing executable reached the DOM, and nothing ran: the HTML shows as the text it is.
  await expect(description.locator('script, img, [onerror]')).toHaveCount(0);
  await expect(description).toContainText('<script>window.__descriptionScript = true</script>');
  const click = description.getByRole('link', { name: 'click' });
  if ((await click.count()) > 0) expect(await click.getAttribute('href')).toBeNull();
  expect(
    await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      return [w.__descriptionScript, w.__descriptionImage, w.__descriptionLink];
    }),
  ).toEqual([undefined, undefined, undefined]);
  await screenshot(page, 'tool-description-markdown');
});

test('a deferred draft shows one state: "draft · expires in …"', async ({ page, request }) => {
  const name = uniqueName('deferred-sales', 'csv');
  await apiUpload(request, name, 'region,sales\nNorth,120\nSouth,80\n');
  await openApp(page);
  await page.getByTestId('server-select').selectOption('report');
  await expect(page.getByTestId('tool-select')).toHaveValue('csv_report');
  // A field's description is markdown too; its <placeholder> stays text, not a dropped tag.
  await expect(
    page
      .locator('.field')
      .filter({ has: page.locator('[data-field="title"]') })
      .locator('.hint'),
  ).toHaveText('Report title. Defaults to "Report: <file name>"');
  await page.locator('select[data-field="filename"]').selectOption(name);
  await page.getByTestId('run-tool').click();
  await expect(page.getByTestId('call-view')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });

  // notes.md, the report's draft (category "draft", persistent, with an expiry).
  const notes = page.getByTestId('section-deferred').locator('[data-name="notes.md"]').first();
  await expect(notes).toBeVisible();
  const state = notes.getByTestId('file-state');
  await expect(state).toHaveClass(/\bdraft\b/);
  // The badge reads one state; its explanation is the tooltip (and read out to screen readers).
  expect(await state.evaluate((el) => el.firstChild?.textContent)).toMatch(
    /^draft · expires in \d+ (days|h( \d+ min)?)$/,
  );
  await expect(state).toHaveAttribute(
    'title',
    /A draft a tool stored for you to finish later\. It is deleted on /,
  );
  // No second badge and no other wording of the same state.
  await expect(notes.locator('.badge')).toHaveCount(1);
  const visible = await notes.evaluate((el) => (el as HTMLElement).innerText);
  expect(visible).not.toMatch(/\bsaved\b/);
  expect(visible.match(/expires in/g)).toHaveLength(1);
  await screenshot(page, 'deferred-state');
});
