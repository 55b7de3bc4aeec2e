// SEP-2356 x-mcp-file inputs in the chat, against a scripted model and a Ferry of its own: the
// model calls xfile › fingerprint_document (a required CSV/text file of at most 1 MiB). The call
// waits on a card in the chat: a picker of My Files filtered by the input's accept list, the line
// "file → server (tool)", Send and Decline. Nothing reaches the server before Send; the tool then
// reports the SHA-256 of the bytes it received.
import { expect, type Page, test } from '@playwright/test';
import { useFerryWithModel } from './support/ferry-with-model';
import { type StoredFile, screenshot, sha256, uniqueName } from './support/fixtures';

const CSV = 'city,visits\nLyon,12\nNantes,7\n';
const TEXT = 'meeting notes\nsecond line\n';
const TOOL = 'xfile__fingerprint_document';
// A PNG signature and header: an image the document input does not accept.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000008000000080806000000c40fbe8b', 'hex');

const ferry = useFerryWithModel();

async function upload(page: Page, name: string, body: string | Buffer): Promise<StoredFile> {
  const response = await page.request.post(`${ferry.url}/api/files?name=${encodeURIComponent(name)}`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: typeof body === 'string' ? Buffer.from(body) : body,
  });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { files: StoredFile[] }).files[0] as StoredFile;
}

async function fingerprintCalls(page: Page): Promise<number> {
  const response = await page.request.get(`${ferry.url}/api/calls?limit=1000`);
  const page1 = (await response.json()) as { items: { tool: string }[] };
  return page1.items.filter((call) => call.tool === 'fingerprint_document').length;
}

async function openChat(page: Page): Promise<void> {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await expect(page.getByTestId('chat')).toBeVisible();
  await page.getByTestId('chat-new').click();
}

async function say(page: Page, text: string): Promise<void> {
  const input = page.getByLabel('Message');
  await input.fill(text);
  await input.press('Enter');
}

test('the model calls an x-mcp-file tool and the user picks the file in the chat', async ({ page }) => {
  const csv = await upload(page, uniqueName('visits', 'csv'), CSV);
  const text = await upload(page, uniqueName('notes', 'txt'), TEXT);
  const png = await upload(page, uniqueName('photo', 'png'), PNG);
  ferry.model.play([
    {
      text: ['I will fingerprint the document you choose.'],
      toolCalls: [{ id: 'fp-1', name: TOOL, arguments: {} }],
    },
    { text: ['The fingerprint is in.'] },
  ]);
  await openChat(page);
  const before = await fingerprintCalls(page);
  await say(page, 'Fingerprint one of my documents');

  const card = page.getByTestId('chat-file-request');
  // The first turn of this Ferry starts every tool server to list their tools.
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(card).toContainText('xfile › fingerprint_document needs a file');
  // The picker offers My Files filtered by the input's accept list (text/csv, text/plain).
  const picker = card.locator('select[data-field="document"]');
  await expect(picker.locator('option', { hasText: csv.name })).toHaveCount(1);
  await expect(picker.locator('option', { hasText: text.name })).toHaveCount(1);
  await expect(picker.locator('option', { hasText: png.name })).toHaveCount(0);
  await expect(card).toContainText('Accepts text/csv, text/plain, at most 1 MiB');
  await expect(card.getByTestId('chat-file-send')).toBeDisabled();

  await picker.selectOption(csv.id);
  await expect(card.getByTestId('chat-file-route')).toHaveText(
    `${csv.name} → server xfile (tool fingerprint_document)`,
  );
  await screenshot(page, 'chat-file-request');
  // Shown, not sent: the server has not been called yet.
  expect(await fingerprintCalls(page)).toBe(before);
  await card.getByTestId('chat-file-send').click();

  await expect(card).toHaveCount(0);
  await expect(page.getByTestId('chat-file-sent')).toContainText(`Sent ${csv.name}`);
  await expect(page.getByTestId('chat-file-sent')).toContainText(
    '→ server xfile (tool fingerprint_document)',
  );
  const tool = page.getByTestId('chat-tool');
  await expect(tool).toHaveAttribute('data-status', 'finished');
  await expect(page.getByTestId('chat-assistant').last()).toContainText('The fingerprint is in.');
  await tool.locator('summary').click();
  await expect(tool.getByTestId('chat-tool-result')).toContainText(sha256(CSV));
  expect(await fingerprintCalls(page)).toBe(before + 1);
  // The model read the fingerprint, never the file's bytes or a data URI.
  const second = await ferry.model.request(2);
  expect(second.raw).not.toContain('data:');
  await screenshot(page, 'chat-file-sent');
});

test('the model names a file: the user sees where it goes and approves it', async ({ page }) => {
  const chosen = await upload(page, uniqueName('named', 'txt'), TEXT);
  ferry.model.play([
    { toolCalls: [{ id: 'fp-2', name: TOOL, arguments: { document: chosen.name } }] },
    { text: ['Done.'] },
  ]);
  await openChat(page);
  await say(page, `Fingerprint ${chosen.name}`);

  const card = page.getByTestId('chat-file-request');
  await expect(card).toContainText(`The model chose ${chosen.name}`);
  await expect(card.locator('select[data-field="document"]')).toHaveValue(chosen.id);
  await expect(card.getByTestId('chat-file-route')).toHaveText(
    `${chosen.name} → server xfile (tool fingerprint_document)`,
  );
  await card.getByTestId('chat-file-send').click();
  const tool = page.getByTestId('chat-tool');
  await expect(tool).toHaveAttribute('data-status', 'finished');
  await tool.locator('summary').click();
  await expect(tool.getByTestId('chat-tool-result')).toContainText(sha256(TEXT));
});

test('declining sends nothing and the model is told', async ({ page }) => {
  ferry.model.play([{ toolCalls: [{ id: 'fp-3', name: TOOL, arguments: {} }] }, { text: ['Understood.'] }]);
  await openChat(page);
  const before = await fingerprintCalls(page);
  await say(page, 'Fingerprint something');
  const card = page.getByTestId('chat-file-request');
  await card.getByTestId('chat-file-decline').click();
  await expect(page.getByTestId('chat-file-sent')).toHaveText('You declined: no file was sent to xfile.');
  await expect(page.getByTestId('chat-tool')).toHaveAttribute('data-status', 'rejected');
  await expect(page.getByTestId('chat-assistant').last()).toContainText('Understood.');
  const second = await ferry.model.request(2);
  expect(JSON.stringify(second.body.messages)).toContain('The user declined to provide a file');
  expect(await fingerprintCalls(page)).toBe(before);
});
