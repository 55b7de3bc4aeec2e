// Shared helpers of the browser tests: the Ferry URL, uploads through the API (for test data that
// is not itself under test), screenshots under test-results/screenshots/, sha256.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type APIRequestContext, test as base, expect, type Locator, type Page } from '@playwright/test';

const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');

export interface StoredFile {
  id: string;
  name: string;
  size: number;
  sha256: string;
  mime: string;
}

export const test = base.extend<{ ferry: string }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  ferry: async ({}, use) => {
    const url = process.env.FERRY_E2E_URL;
    if (!url) throw new Error('FERRY_E2E_URL is not set: global-setup.ts did not start Ferry');
    await use(url);
  },
  // biome-ignore lint/correctness/noEmptyPattern: as above
  baseURL: async ({}, use) => {
    await use(process.env.FERRY_E2E_URL);
  },
});

export { expect };

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Stores a file through the API (raw body upload), as the CLI would. */
export async function apiUpload(
  request: APIRequestContext,
  name: string,
  body: Buffer | string,
): Promise<StoredFile> {
  const response = await request.post(`/api/files?name=${encodeURIComponent(name)}`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: typeof body === 'string' ? Buffer.from(body) : body,
  });
  expect(response.status(), await response.text()).toBe(201);
  const json = (await response.json()) as { files: StoredFile[] };
  return json.files[0] as StoredFile;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** A unique file name per test run, so tests never see each other's files. */
export function uniqueName(stem: string, extension: string): string {
  return `${stem}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.${extension}`;
}

/** Opens the app and waits until My Files and the tool servers are loaded. */
export async function openApp(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  await expect(page.getByTestId('server-select')).not.toHaveValue('');
}

/**
 * Runs xfile › review_document from the runner (with `purpose` when given) and returns the dialog
 * of the question it asks, once shown.
 */
export async function askForReview(page: Page, purpose?: string): Promise<Locator> {
  await page.getByTestId('server-select').selectOption('xfile');
  await page.getByTestId('tool-select').selectOption('review_document');
  if (purpose !== undefined) await page.locator('input[data-field="purpose"]').fill(purpose);
  await page.getByTestId('run-tool').click();
  const dialog = page.getByRole('dialog', { name: 'The tool needs your input' });
  await expect(dialog).toBeVisible({ timeout: 30_000 });
  return dialog;
}

/** A region of My Files: the row of the newest file with this name. */
export function fileRow(page: Page, name: string) {
  return page.locator(`[data-testid="file-row"][data-name="${name}"]`).first();
}
