// The chat against a scripted OpenAI-compatible model (real HTTP on loopback, streamed chunks):
// its own Ferry, started with FERRY_LLM_* pointing at the script (the shared Ferry has no model).
// A turn that runs the report tool on an uploaded CSV by name: the answer streams in, the tool
// card shows the call, the report.html chip opens in the sandboxed canvas iframe. Stop cancels a
// streaming turn.

import { expect, type Page, test } from '@playwright/test';
import { useFerryWithModel } from './support/ferry-with-model';
import { screenshot, uniqueName } from './support/fixtures';

const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\nWest,99\n';

const ferry = useFerryWithModel();

async function openChat(page: Page): Promise<void> {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await expect(page.getByTestId('chat')).toBeVisible();
  await expect(page.getByTestId('chat-placeholder')).toHaveCount(0);
}

test('a chat turn runs the report tool on an uploaded CSV and opens the report in the canvas', async ({
  page,
}) => {
  const name = uniqueName('chat-sales', 'csv');
  ferry.model.play([
    {
      text: ['I will run ', 'the report on ', `${name}.`],
      toolCalls: [
        { id: 'call-1', name: 'report__csv_report', arguments: { filename: name, title: 'Chat sales' } },
      ],
    },
    {
      text: [
        'The report ',
        'is ready: ',
        '**report.html** shows ',
        '4 regions.',
        '\n\n<img src=x onerror="window.__chatXss=1">',
      ],
    },
  ]);
  await openChat(page);
  await page
    .getByTestId('upload-input')
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await expect(page.locator(`[data-testid="file-row"][data-name="${name}"]`).first()).toBeVisible();

  const input = page.getByLabel('Message');
  await input.fill(`Make a report of ${name}`);
  await screenshot(page, 'chat-composer');
  await input.press('Enter');

  await expect(page.getByTestId('chat-user')).toHaveText(`You said: Make a report of ${name}`);
  const answers = page.getByTestId('chat-assistant');
  await expect(answers.first()).toContainText(`I will run the report on ${name}.`);
  await expect(answers.last()).toContainText('The report is ready: report.html shows 4 regions.');
  // A finished answer is markdown, sanitized: bold renders, an injected handler never runs.
  await expect(answers.last().locator('strong')).toHaveText('report.html');
  expect(await page.evaluate(() => (window as unknown as { __chatXss?: number }).__chatXss)).toBeUndefined();
  await expect(answers.last().locator('img[onerror]')).toHaveCount(0);

  const card = page.getByTestId('chat-tool');
  await expect(card).toHaveCount(1);
  await expect(card).toHaveAttribute('data-status', 'finished');
  await expect(card).toContainText('report › csv_report');
  await expect(card.getByTestId('chat-tool-status')).toHaveText('Finished');
  await expect(page.getByTestId('chat-input')).toBeEnabled();

  // The model got the file list with the message; the chat shows the message as typed.
  const first = await ferry.model.request(1);
  expect(JSON.stringify(first.body.messages)).toContain(name);
  await expect(page.getByTestId('chat-messages')).not.toContainText('[SYSTEM');
  // The tool card folds open to show the arguments and what the model read.
  await card.locator('summary').first().click(); // the card's own; meta_data folds inside it
  await expect(card.getByTestId('chat-tool-result')).toContainText('Chat sales');
  await screenshot(page, 'chat-turn');

  // The stored files are chips; report.html opens in the sandboxed iframe on the canvas.
  const chips = card.getByRole('list', { name: 'Files from this call' });
  await expect(chips.getByRole('button')).toHaveCount(3);
  await chips.getByRole('button', { name: /report\.html/ }).click();
  const pane = page.getByTestId('canvas-pane').last();
  await expect(pane).toHaveAttribute('data-item', 'report.html');
  await expect(pane.locator('iframe.html-frame')).toHaveAttribute('sandbox', 'allow-scripts');
  const frame = page.frameLocator('iframe.html-frame');
  await expect(frame.locator('body')).toContainText('Chat sales');
  await expect(frame.locator('body')).toContainText('North');
  await screenshot(page, 'chat-canvas');

  // The conversation was titled from the message and survives a reload, tool card and all.
  const item = page.getByTestId('chat-conversation').filter({ hasText: `Make a report of ${name}` });
  await expect(item).toHaveCount(1);
  await page.reload();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await item.getByRole('button', { name: `Make a report of ${name}` }).click();
  await expect(page.getByTestId('chat-tool')).toHaveAttribute('data-status', 'finished');
  await expect(page.getByTestId('chat-assistant').last()).toContainText('4 regions.');
  await expect(page.getByTestId('chat-user')).toHaveText(`You said: Make a report of ${name}`);
});

test('Stop cancels a streaming turn and keeps what arrived', async ({ page }) => {
  ferry.model.play([{ text: ['Thinking about ', 'a long answer'], hold: true }]);
  await openChat(page);
  await page.getByTestId('chat-new').click();
  const input = page.getByLabel('Message');
  // Shift+Enter is a new line, Enter sends.
  await input.fill('Tell me');
  await input.press('Shift+Enter');
  await input.pressSequentially('a long story');
  await expect(input).toHaveValue('Tell me\na long story');
  await input.press('Enter');
  await expect(page.getByTestId('chat-user')).toContainText('a long story');

  const answer = page.getByTestId('chat-assistant');
  await expect(answer).toContainText('Thinking about a long answer');
  await expect(answer).toHaveAttribute('data-live', 'true');
  await expect(input).toBeDisabled();
  await screenshot(page, 'chat-streaming');
  await page.getByTestId('chat-stop').click();

  await expect(page.getByTestId('chat-notice')).toContainText('Stopped');
  await expect(answer).toHaveAttribute('data-live', 'false');
  await expect(answer).toContainText('stopped');
  await expect(input).toBeEnabled();
  await expect(page.getByTestId('chat-send')).toBeVisible();
  // The model's stream was closed by Ferry, not left running.
  const request = await ferry.model.request(1);
  await request.closed;
  expect(request.aborted).toBe(true);
  await screenshot(page, 'chat-stopped');
  await page.getByRole('button', { name: /Switch to dark theme/ }).click();
  await screenshot(page, 'chat-stopped-dark');
});

test('a page reloaded while a turn streams follows that turn, which ran on', async ({ page }) => {
  ferry.model.play([{ text: ['Working on ', 'a slow answer'], hold: true }]);
  await openChat(page);
  await page.getByTestId('chat-new').click();
  const input = page.getByLabel('Message');
  await input.fill('Take your time');
  await input.press('Enter');
  const answer = page.getByTestId('chat-assistant');
  await expect(answer).toContainText('Working on a slow answer');

  // The POST stream goes with the page; the turn runs on for a follower (15 s grace).
  await page.reload();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await page.getByTestId('chat-conversation').first().getByRole('button', { name: 'Take your time' }).click();
  await expect(page.getByTestId('chat-user')).toHaveText('You said: Take your time');
  await expect(answer).toContainText('Working on a slow answer');
  await expect(answer).toHaveAttribute('data-live', 'true');
  await expect(page.getByLabel('Message')).toBeDisabled();
  expect(ferry.model.requests).toHaveLength(1);
  expect(ferry.model.requests[0]?.aborted).toBe(false);
  await screenshot(page, 'chat-followed-after-reload');

  await page.getByTestId('chat-stop').click();
  await expect(answer).toHaveAttribute('data-live', 'false');
  await expect(answer).toContainText('stopped');
  await (await ferry.model.request(1)).closed;
  expect(ferry.model.requests[0]?.aborted).toBe(true);
});

test('rename and delete a conversation', async ({ page }) => {
  await openChat(page);
  await page.getByTestId('chat-new').click();
  const item = page.getByTestId('chat-conversation').first();
  await item.getByRole('button', { name: 'Rename New conversation' }).click();
  const title = `Renamed ${Date.now().toString(36)}`;
  await item.getByLabel('Conversation title').fill(title);
  await item.getByLabel('Conversation title').press('Enter');
  const renamed = page.getByTestId('chat-conversation').filter({ hasText: title });
  await expect(renamed).toHaveCount(1);
  await renamed.getByRole('button', { name: `Delete ${title}` }).click();
  await renamed.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByTestId('chat-conversation').filter({ hasText: title })).toHaveCount(0);
});

test('a model failure is shown as an error, and the next message still works', async ({ page }) => {
  ferry.model.play([{ status: 500 }, { text: ['Back ', 'again.'] }]);
  await openChat(page);
  await page.getByTestId('chat-new').click();
  const input = page.getByLabel('Message');
  await input.fill('Hello?');
  await input.press('Enter');
  await expect(page.getByTestId('chat-error')).toContainText('E_MODEL_ERROR');
  await expect(page.getByTestId('chat-notice')).toContainText('failed');
  await screenshot(page, 'chat-error');
  await expect(input).toBeEnabled();
  await input.fill('Hello again');
  await input.press('Enter');
  await expect(page.getByTestId('chat-assistant').last()).toContainText('Back again.');
});
