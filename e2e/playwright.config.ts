// Browser tests: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) against a real Ferry
// started by global-setup.ts with the example servers. Reporters: list for people, json for
// scripts/test.mjs (path from PLAYWRIGHT_JSON_OUTPUT_NAME).
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './global-setup.ts',
  outputDir: '../test-results/playwright',
  // One Ferry is shared; the tests create their own files, but calls and uploads of several
  // workers at once would make timing assertions (notices) flaky on a loaded machine.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [
    ['list'],
    [
      'json',
      {
        outputFile:
          process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ??
          join(import.meta.dirname, '../test-results/playwright.json'),
      },
    ],
  ],
  use: {
    baseURL: process.env.FERRY_E2E_URL,
    headless: true,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
});
