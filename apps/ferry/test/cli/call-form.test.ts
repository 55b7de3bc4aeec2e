// The `ferry` command and a tool's meta_data, retryable and the v2.1 form, end to end: the real bin
// against a started Ferry whose base64 limit is 16 bytes, with the slow example's flaky tool (a
// retryable failure, meta_data on success) and the sized example (files of exact sizes).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallV21FormSchema } from '@ferry/contract';
import { scriptServer } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { exampleServers, REPO_ROOT, startTestApp, type TestApp } from '../support/start-app.js';

const BIN = join(REPO_ROOT, 'apps/ferry/bin/ferry.mjs');
// Every run starts Node and tsx (a second or more under load), so these tests get more time.
const SLOW = 120_000;

let t: TestApp;
let work: string;
beforeAll(async () => {
  const { slow } = await exampleServers();
  t = await startTestApp({
    storage: { base64_size_limit_mb: 16 / (1024 * 1024) },
    servers: {
      slow,
      sized: {
        ...scriptServer('sized'),
        fileMode: 'path',
      },
    },
  });
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-form-'));
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

function ferry(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', t.url, ...args],
      { cwd: work, env: { ...process.env, FERRY_URL: '' }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const callIdOf = (stderr: string) => /^call ([0-9a-f-]{36})$/m.exec(stderr)?.[1] as string;

describe('ferry call prints meta_data and retryable', () => {
  it(
    'a success: the results, then the tool’s meta_data',
    async () => {
      const key = `cli-ok-${Date.now()}`;
      const run = await ferry(['call', 'slow', 'flaky', '--arg', `key=${key}`, '--arg', 'failures=0']);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      expect(run.stdout).toBe(
        `${JSON.stringify({ status: 'ok', attempt: 1 }, null, 2)}\nmeta_data:\n  key: ${key}\n  attempt: 1\n  failed_before: 0\n`,
      );
      expect(callIdOf(run.stderr)).toMatch(/^[0-9a-f-]{36}$/);
    },
    SLOW,
  );

  it(
    'a retryable failure says so, and exits 1',
    async () => {
      const key = `cli-fail-${Date.now()}`;
      const run = await ferry(['call', 'slow', 'flaky', '--arg', `key=${key}`]);
      expect(run.code).toBe(EXIT.toolFailed);
      const lines = run.stdout.split('\n');
      expect(lines.slice(0, 3)).toEqual([
        'error: Upstream busy (failure 1 of 1) (E_UPSTREAM_BUSY)',
        'suggestion: Try again',
        'retryable: yes, the same call may safely be run again',
      ]);
      expect(lines).toContain('  error_code: E_UPSTREAM_BUSY');

      const refused = await ferry([
        'call',
        'slow',
        'flaky',
        '--arg',
        `key=${key}-b`,
        '--arg',
        'retryable=false',
      ]);
      expect(refused.stdout).toContain('retryable: no, running it again as it is would fail the same way');
    },
    SLOW,
  );
});

describe('--form v2.1', () => {
  it(
    'ferry call prints the v2.1 form: b64 up to the limit, a reference above; calls show prints it again',
    async () => {
      const run = await ferry(['call', 'sized', 'sized_files', '--arg', 'sizes=[16,17]', '--form', 'v2.1']);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      const form = CallV21FormSchema.parse(JSON.parse(run.stdout));
      const [inline, referenced] = form.artifacts;
      expect(inline?.name).toBe('file-0-16.bin');
      expect(Buffer.from(inline?.b64 as string, 'base64')).toHaveLength(16);
      expect(referenced).toMatchObject({
        name: 'file-1-17.bin',
        size: 17,
        s3_ref: { version: 1, internal: true },
      });
      expect(form.meta_data).toEqual({ sizes: [16, 17], deferred_sizes: [] });

      const callId = callIdOf(run.stderr);
      const shown = await ferry(['calls', 'show', callId, '--form', 'v2.1']);
      expect(shown.code, shown.stderr).toBe(EXIT.ok);
      expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(run.stdout));

      const readable = await ferry(['calls', 'show', callId]);
      expect(readable.stdout).toContain('file: file-1-17.bin (application/octet-stream, 17 B)');
      expect(readable.stdout).toContain('  sizes: [16,17]');
      const listed = await ferry(['calls', 'ls']);
      expect(listed.stdout).toMatch(new RegExp(`^${callId}\\s+finished\\s+\\S+\\s+sized sized_files$`, 'm'));
    },
    SLOW,
  );

  it(
    'an unknown form is a usage error; an unknown call is refused',
    async () => {
      const bad = await ferry(['call', 'slow', 'flaky', '--arg', 'key=x', '--form', 'v3']);
      expect(bad.code).toBe(EXIT.usage);
      expect(bad.stderr).toContain('Allowed choices are v2.1');
      const missing = await ferry([
        'calls',
        'show',
        '7b0f2c4e-8a1d-4c3e-9f5a-1b2c3d4e5f60',
        '--form',
        'v2.1',
      ]);
      expect(missing.code).toBe(EXIT.refused);
    },
    SLOW,
  );
});
