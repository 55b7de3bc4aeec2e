// The `ferry` command end to end: the real bin (bin/ferry.mjs → tsx → src/main.ts) against a
// started Ferry with the example servers, as a user would run it.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REPO_ROOT, startTestApp, type TestApp } from '../support/start-app.js';

const BIN = join(REPO_ROOT, 'apps/ferry/bin/ferry.mjs');
const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\n';
// Every run starts Node and tsx (a second or more under load), so these tests get more time.
const SLOW = 120_000;

let t: TestApp;
let work: string;

beforeAll(async () => {
  t = await startTestApp();
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-'));
  await writeFile(join(work, 'sales.csv'), CSV);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

function ferry(args: string[], url = t.url): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', url, ...args],
      { cwd: work, env: { ...process.env, FERRY_URL: '' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('ferry call', () => {
  it(
    'uploads the CSV, calls the report tool, prints the result and saves the outputs',
    async () => {
      const out = join(work, 'out');
      const run = await ferry([
        '--json',
        'call',
        'report',
        'csv_report',
        '--file',
        'sales.csv',
        '--arg',
        'title=Q3',
        '--out',
        out,
      ]);
      expect(run.stderr).toContain('uploaded sales.csv');
      expect(run.code, run.stderr).toBe(EXIT.ok);
      const result = JSON.parse(run.stdout) as {
        status: string;
        response: {
          forModel: { results: { summary: string } };
          forUi: { files: { name: string; size: number }[] };
        };
      };
      expect(result.status).toBe('finished');
      expect(result.response.forModel.results.summary).toContain('Q3');
      const saved = (await readdir(out)).sort();
      expect(saved).toEqual(['chart.png', 'notes.md', 'report.html']);
      for (const file of result.response.forUi.files) {
        expect((await readFile(join(out, file.name))).length).toBe(file.size);
      }
      expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('North');
    },
    SLOW,
  );

  it(
    'prints a readable result without --json',
    async () => {
      const run = await ferry(['call', 'slow', 'slow_task', '--arg', 'seconds=0.3', '--arg', 'steps=3']);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      expect(run.stdout).toContain('"status": "completed"');
    },
    SLOW,
  );

  it(
    'exits 1 when the tool fails, 2 for an unknown tool or a bad --arg',
    async () => {
      const failing = await ferry(['call', 'slow', 'crash']);
      expect(failing.code).toBe(EXIT.toolFailed);
      expect(failing.stdout).toContain('error:');
      expect((await ferry(['call', 'report', 'no_such_tool'])).code).toBe(EXIT.usage);
      expect((await ferry(['call', 'slow', 'slow_task', '--arg', 'novalue'])).code).toBe(EXIT.usage);
      expect((await ferry(['call', 'slow'])).code).toBe(EXIT.usage);
    },
    SLOW,
  );
});

describe('ferry files and tools', () => {
  it(
    'put, ls, get, rm',
    async () => {
      const put = await ferry(['--json', 'files', 'put', 'sales.csv', '--name', 'cli.csv']);
      expect(put.code, put.stderr).toBe(EXIT.ok);
      const stored = (JSON.parse(put.stdout) as { files: { id: string; name: string }[] }).files[0];
      expect(stored?.name).toBe('cli.csv');

      const ls = await ferry(['files', 'ls', '-q', 'cli']);
      expect(ls.code).toBe(EXIT.ok);
      expect(ls.stdout).toContain('cli.csv');
      expect(ls.stdout).toContain(stored?.id);

      const target = join(work, 'got.csv');
      const get = await ferry(['files', 'get', 'cli.csv', '-o', target]);
      expect(get.code, get.stderr).toBe(EXIT.ok);
      expect(await readFile(target, 'utf8')).toBe(CSV);
      const toStdout = await ferry(['files', 'get', stored?.id as string, '-o', '-']);
      expect(toStdout.stdout).toBe(CSV);

      expect((await ferry(['files', 'rm', 'cli.csv'])).code).toBe(EXIT.ok);
      expect((await ferry(['files', 'get', 'cli.csv'])).code).toBe(EXIT.refused);
      expect((await ferry(['files', 'get', '7b0f2c4e-8a1d-4c3e-9f5a-1b2c3d4e5f60'])).code).toBe(EXIT.refused);
    },
    SLOW,
  );

  it(
    'tools ls marks file parameters and hides injected ones',
    async () => {
      const run = await ferry(['tools', 'ls', 'report']);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      expect(run.stdout).toContain('csv_report(filename*, title?)');
    },
    SLOW,
  );

  it(
    'exits 3 when Ferry is not reachable',
    async () => {
      const run = await ferry(['files', 'ls'], 'http://127.0.0.1:1');
      expect(run.code).toBe(EXIT.unreachable);
      expect(run.stderr).toContain('Cannot reach Ferry');
    },
    SLOW,
  );

  it(
    'exits 2 on unknown commands and options',
    async () => {
      expect((await ferry(['frobnicate'])).code).toBe(EXIT.usage);
      expect((await ferry(['files', 'ls', '--bogus'])).code).toBe(EXIT.usage);
    },
    SLOW,
  );
});
