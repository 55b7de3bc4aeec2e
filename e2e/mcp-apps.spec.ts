// MCP Apps in the canvas (docs/mcp-apps.md, "Rendering in the web app"), in real Chromium: a
// remote MCP server this spec runs on loopback (apps/ferry/test/support/app-probe-server.ts) declares a view; the
// runner's call opens it in a canvas tab, loaded through Ferry's sandbox origin. From inside,
// the view cannot read Ferry's cookie, storage or DOM, and its CSP lets a fetch reach the origin
// it declared but not another one (two loopback servers count what arrives). Its own tool call
// runs through the pipeline and its file lands in My Files; links, messages, foreign tools and
// x-mcp-file inputs go through the user.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { expect, type FrameLocator, type Page, test } from '@playwright/test';
import { type AppProbeServer, startAppProbeServer } from '../apps/ferry/test/support/app-probe-server';
import { screenshot } from './support/fixtures';
import { type SpawnedFerry, spawnFerry } from './support/spawn-ferry';

const SECRET = 'ferry-secret-7f3a91';

interface Counted {
  origin: string;
  requests: string[];
  server: Server;
}

/** A loopback origin that records every request; CORS open, so a fetch the CSP lets through succeeds. */
async function countingServer(): Promise<Counted> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, requests, server };
}

let allowed: Counted;
let forbidden: Counted;
let probe: AppProbeServer;
let ferry: SpawnedFerry;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  allowed = await countingServer();
  forbidden = await countingServer();
  probe = await startAppProbeServer({
    allowedOrigin: allowed.origin,
    forbiddenOrigin: forbidden.origin,
    linkUrl: `${allowed.origin}/landing`,
  });
  ferry = await spawnFerry({
    FERRY_E2E_SERVERS: JSON.stringify({ probe: { transport: 'http', url: probe.url } }),
  });
});
test.afterAll(async () => {
  await ferry?.stop();
  await probe?.close();
  for (const counted of [allowed, forbidden]) {
    counted?.server.closeAllConnections();
    await new Promise<void>((resolve) => (counted ? counted.server.close(() => resolve()) : resolve()));
  }
});

/** Opens Ferry with a secret in its cookie and storage, runs probe › open_probe, returns the view. */
async function openProbe(page: Page, label: string): Promise<FrameLocator> {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  // A script-readable cookie of Ferry's host: cookies ignore ports, so the sandbox origin's own
  // documents would see it; the app's opaque origin must not.
  await page.context().addCookies([{ name: 'ferry_probe', value: SECRET, domain: '127.0.0.1', path: '/' }]);
  await page.evaluate((secret) => localStorage.setItem('ferry_probe', secret), SECRET);
  expect(await page.evaluate(() => document.cookie)).toContain(SECRET);
  await page.getByTestId('server-select').selectOption('probe');
  await expect(page.getByTestId('tool-select')).toHaveValue('open_probe');
  await page.locator('[data-field="label"]').fill(label);
  await page.getByTestId('run-tool').click();
  await expect(page.getByRole('tab', { name: 'Probe view' })).toHaveAttribute('aria-selected', 'true');
  return page.frameLocator('[data-testid="app-frame"]').frameLocator('iframe');
}

test('renders the view through the sandbox origin, isolated from Ferry and held to its CSP', async ({
  page,
}) => {
  const before = probe.reports.length;
  const view = await openProbe(page, 'first');
  // The app-only tools (report_probe, measure_file) are not offered in the runner.
  await expect(page.getByTestId('tool-select').locator('option')).toHaveText(['Probe view']);

  // The proxy page is on the sandbox origin Ferry names, not Ferry's own.
  const status = (await (await page.request.get(`${ferry.url}/api/status`)).json()) as {
    appsSandboxUrl: string;
  };
  const sandboxOrigin = new URL(status.appsSandboxUrl).origin;
  expect(sandboxOrigin).not.toBe(new URL(ferry.url).origin);
  const outer = page.getByTestId('app-frame');
  expect(new URL((await outer.getAttribute('src')) ?? '').origin).toBe(sandboxOrigin);
  await expect(outer).toHaveAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  await expect(page.frameLocator('[data-testid="app-frame"]').locator('iframe')).toHaveAttribute(
    'sandbox',
    'allow-scripts allow-forms',
  );

  // The view got the call's input and result, then reported through its own (app-only) tool.
  await expect(view.locator('#input')).toHaveText('input {"label":"first"}');
  await expect(view.locator('#result')).toHaveText('result {"label":"first","opened":true}');
  await expect(view.locator('#status')).toHaveText('reported', { timeout: 30_000 });
  expect(probe.reports.length).toBe(before + 1);
  const report = probe.reports[before];
  if (!report) throw new Error('no report');
  // Opaque origin: no cookie jar, no storage, no way into the proxy or Ferry's page.
  expect(report.origin).toBe('null');
  expect(report.cookie).toBe('blocked: SecurityError');
  expect(report.storage).toBe('blocked: SecurityError');
  expect(report.parentDom).toBe('blocked: SecurityError');
  expect(JSON.stringify(report)).not.toContain(SECRET);
  // The CSP: the declared origin is reachable, the other one never saw a request.
  expect(report.allowedFetch).toBe('ok 200');
  expect(report.forbiddenFetch).toBe('failed: TypeError');
  expect(allowed.requests).toContain('/ok');
  expect(forbidden.requests).toEqual([]);
  expect(report.toolInput).toEqual({ label: 'first' });
  expect(report.toolResult).toMatchObject({ structuredContent: { label: 'first', opened: true } });
  expect(report.hostContext).toMatchObject({ displayMode: 'inline', platform: 'web' });
  expect(['light', 'dark']).toContain((report.hostContext as { theme: string }).theme);

  // The view's tool call ran through the pipeline: its file is in My Files.
  await expect(page.locator('[data-testid="file-row"][data-name="probe-report.json"]').first()).toBeVisible();
  // The view told its size: the frame grew or shrank to it (not the 360 px default).
  await expect.poll(async () => (await outer.boundingBox())?.height ?? 0).not.toBe(360);
  await screenshot(page, 'mcp-app');
  await page.screenshot({ path: '/tmp/mcp-app-probe.png' });
});

test('links, messages, foreign tools and file inputs go through the user', async ({ page, context }) => {
  const view = await openProbe(page, 'second');
  await expect(view.locator('#status')).toHaveText('reported', { timeout: 30_000 });
  const log = view.locator('#log');

  // A tool of another server is out of reach.
  await view.locator('#foreign').click();
  await expect(log).toContainText('foreign: error -32602 "describe_image" is not a tool of probe');

  // Links: denied, then allowed (a new tab, without opener).
  await view.locator('#link').click();
  const ask = page.getByTestId('app-ask');
  await expect(ask).toContainText(`${new URL(`${allowed.origin}/landing`).host}`);
  await page.getByTestId('app-ask-deny').click();
  await expect(log).toContainText('link: error -32000 Link opening denied by user');
  const opened = context.waitForEvent('page');
  await view.locator('#link').click();
  await page.getByTestId('app-ask-allow').click();
  const tab = await opened;
  await tab.waitForLoadState();
  expect(tab.url()).toBe(`${allowed.origin}/landing`);
  expect(await tab.evaluate(() => window.opener)).toBeNull();
  await tab.close();
  await expect(log).toContainText('link: ok {}');

  // A message is added once the user agrees.
  await view.locator('#message').click();
  await expect(page.getByTestId('app-ask-text')).toHaveText('Chart looks good');
  await page.getByTestId('app-ask-allow').click();
  await expect(page.getByTestId('app-messages')).toContainText('Chart looks good');
  await expect(log).toContainText('message: ok {}');

  // A tool with an x-mcp-file input: the user picks the file from My Files.
  const name = `measure-${Date.now().toString(36)}.txt`;
  const upload = await page.request.post(`${ferry.url}/api/files?name=${encodeURIComponent(name)}`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from('twelve bytes'),
  });
  expect(upload.status()).toBe(201);
  const stored = ((await upload.json()) as { files: { id: string }[] }).files[0]?.id ?? '';
  // My Files learns of the upload from the user's event stream.
  await expect(page.locator(`[data-testid="file-row"][data-name="${name}"]`)).toBeVisible();
  await view.locator('#measure').click();
  const picker = page.getByTestId('app-pick-files');
  await expect(picker).toBeVisible();
  await picker.locator('select').selectOption(stored);
  await page.getByTestId('app-pick-send').click();
  await expect(log).toContainText('measure: ok {"bytes":12,"text":"twelve bytes"}');

  // Another tab shown, then the view's tab again: the view loads anew with the same input and result.
  await page.locator(`[data-testid="file-row"][data-name="${name}"] .file-open`).first().click();
  await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('app-frame')).toHaveCount(0);
  await page.getByRole('tab', { name: 'Probe view' }).click();
  await expect(view.locator('#result')).toHaveText('result {"label":"second","opened":true}');

  // Closing the tab tears the view down and removes its frame.
  await page.getByTestId('canvas-tab-close').click();
  await expect(page.getByTestId('app-frame')).toHaveCount(0);
});

test('the csv-chart example draws a CSV from My Files and exports the chart into My Files', async ({
  page,
}) => {
  await page.goto(`${ferry.url}/`);
  await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
  const stem = `sales-${Date.now().toString(36)}`;
  const upload = await page.request.post(`${ferry.url}/api/files?name=${stem}.csv`, {
    headers: { 'content-type': 'application/octet-stream' },
    data: Buffer.from('month,revenue,costs\nJan,10,7\nFeb,14,8\nMar,9,6\nApr,17,9\n'),
  });
  expect(upload.status()).toBe(201);
  await expect(page.locator(`[data-testid="file-row"][data-name="${stem}.csv"]`)).toBeVisible();
  await page.getByTestId('server-select').selectOption('csv-chart');
  await page.getByTestId('tool-select').selectOption('show_csv_chart');
  await page.locator('select[data-field="filename"]').selectOption(`${stem}.csv`);
  await page.getByTestId('run-tool').click();
  await expect(page.getByRole('tab', { name: 'CSV chart' })).toHaveAttribute('aria-selected', 'true');
  const view = page.frameLocator('[data-testid="app-frame"]').frameLocator('iframe');
  await expect(view.locator('#export')).toBeEnabled({ timeout: 30_000 });
  await expect(view.locator('#legend')).toContainText('revenue');
  await view.locator('#export').click();
  await expect(view.locator('#status')).toHaveAttribute('data-kind', 'ok', { timeout: 30_000 });
  // The view (ext-apps' App) read the tool's result, not its raw JSON text.
  await expect(view.locator('#status')).toHaveText(`Saved ${stem}-chart.png to your files.`);
  await expect(page.locator(`[data-testid="file-row"][data-name="${stem}-chart.png"]`)).toBeVisible();
  // The file the app's call stored is listed under the app; opening it shows it in the canvas.
  const stored = page
    .getByTestId('app-files')
    .getByRole('button', { name: new RegExp(`${stem}-chart\\.png`) });
  await expect(stored).toBeVisible();
  await screenshot(page, 'mcp-app-csv-chart');
  await page.screenshot({ path: '/tmp/mcp-app-extapps.png' });
  // Ferry's theme reaches the view: in its first host context, then as a context change.
  await expect(view.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(view.locator('html')).toHaveAttribute('data-theme', 'dark');
  await stored.click();
  await expect(page.getByRole('tab', { name: `${stem}-chart.png` })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('canvas-pane').locator('.image-viewer img')).toBeVisible();
});

test.describe('in the chat', () => {
  // A Ferry of its own with a scripted model, and the probe server as well as the examples.
  let model: ScriptedModelServer;
  let chatFerry: SpawnedFerry;
  const withModel = {
    get url() {
      return chatFerry.url;
    },
    get model() {
      return model;
    },
  };
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    model = await startScriptedModelServer();
    chatFerry = await spawnFerry({
      FERRY_LLM_BASE_URL: model.baseURL,
      FERRY_LLM_API_KEY: 'sk-e2e',
      FERRY_LLM_MODEL: 'scripted-e2e',
      FERRY_LLM_MAX_RETRIES: '0',
      FERRY_E2E_SERVERS: JSON.stringify({ probe: { transport: 'http', url: probe.url } }),
    });
  });
  test.afterAll(async () => {
    await chatFerry?.stop();
    await model?.close();
  });

  const say = async (page: Page, text: string) => {
    await page.goto(`${withModel.url}/`);
    await expect(page.getByRole('heading', { name: 'My Files' })).toBeVisible();
    await page.getByRole('button', { name: 'Chat', exact: true }).click();
    await page.getByTestId('chat-new').click();
    const input = page.getByLabel('Message');
    await input.fill(text);
    await input.press('Enter');
  };

  test("a model's call to a tool with a view opens the view in the canvas", async ({ page }) => {
    const stem = `visits-${Date.now().toString(36)}`;
    const upload = await page.request.post(`${withModel.url}/api/files?name=${stem}.csv`, {
      headers: { 'content-type': 'application/octet-stream' },
      data: Buffer.from('day,visits\nMon,3\nTue,5\nWed,4\n'),
    });
    expect(upload.status()).toBe(201);
    withModel.model.play([
      {
        text: ['Here is the chart.'],
        toolCalls: [
          { id: 'chart-1', name: 'csv-chart__show_csv_chart', arguments: { filename: `${stem}.csv` } },
        ],
      },
      { text: ['The chart is on the canvas.'] },
    ]);
    await say(page, 'Chart my visits');
    await expect(page.getByRole('tab', { name: 'CSV chart' })).toHaveAttribute('aria-selected', 'true');
    const view = page.frameLocator('[data-testid="app-frame"]').frameLocator('iframe');
    await expect(view.locator('#legend')).toContainText('visits', { timeout: 30_000 });
    await expect(page.getByText('The chart is on the canvas.')).toBeVisible();
    // Closed, it opens again from the tool card.
    await page.getByTestId('canvas-tab-close').click();
    await expect(page.getByTestId('app-frame')).toHaveCount(0);
    await page.getByTestId('open-app').click();
    await expect(view.locator('#legend')).toContainText('visits', { timeout: 30_000 });
  });

  test("an approved ui/message lands in the chat's composer, for the user to send", async ({ page }) => {
    withModel.model.play([
      {
        text: ['Opening the probe.'],
        toolCalls: [{ id: 'probe-1', name: 'probe__open_probe', arguments: { label: 'chat' } }],
      },
      { text: ['The probe is open.'] },
    ]);
    await say(page, 'Open the probe');
    const view = page.frameLocator('[data-testid="app-frame"]').frameLocator('iframe');
    await expect(view.locator('#status')).toHaveText('reported', { timeout: 30_000 });
    await expect(page.getByText('The probe is open.')).toBeVisible();
    await view.locator('#message').click();
    await page.getByTestId('app-ask-allow').click();
    await expect(page.getByTestId('chat-input')).toHaveValue('Chart looks good');
    await expect(view.locator('#log')).toContainText('message: ok {}');
  });
});
