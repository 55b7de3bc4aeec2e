// The file provider seen from the web app: the `secrets` example server holds no files and reads
// the user's upload only by calling back into Ferry (find_files, read_file, calculate_file_hash);
// each callback is a line of the call's Activity, and the secret is masked in the result.
import { apiUpload, expect, openApp, screenshot, test, uniqueName } from './support/fixtures';

test('a tool reads an upload through the file provider; its callbacks show in the Activity', async ({
  page,
  request,
}) => {
  const me = (await (await request.get('/api/me')).json()) as { username: string };
  const name = uniqueName('deploy', 'env');
  await apiUpload(request, name, 'REGION=eu-north-1\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n');
  const uploaded = `/tmp/${me.username}/my_files/uploaded`;

  await openApp(page);
  await page.getByTestId('server-select').selectOption('secrets');
  await expect(page.getByTestId('tool-select')).toHaveValue('scan_secrets');
  await page.locator('input[data-field="directory"]').fill(uploaded);
  await page.getByTestId('run-tool').click();

  const call = page.getByTestId('call-view');
  await expect(call).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await expect(call).toContainText(name);
  // Masked: the key's prefix, never the key.
  await expect(call).toContainText('AKIA');
  await expect(call).not.toContainText('AKIAIOSFODNN7EXAMPLE');

  const activity = call.locator('details.call-log');
  await activity.locator('summary').click();
  await expect(activity).toContainText(`find_files ${uploaded}`);
  await expect(activity).toContainText(
    new RegExp(`read_file ${uploaded}/${name.replace('.', '\\.')} · \\d+ B`),
  );
  await expect(activity).toContainText(`calculate_file_hash ${uploaded}/${name}`);
  await activity.scrollIntoViewIfNeeded();
  await screenshot(page, 'file-provider-activity');
});
