// `ferry call` checks the tool's required parameters against the command line before it uploads a
// byte or starts a call: a missing file names --file and the parameter, a missing argument names
// --arg, and the exit code is 2 (usage). Nothing reaches Ferry: no call, no stored file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { exampleServers, http, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';
import { ferry } from './run-ferry.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\n';
const SLOW = 120_000;

let t: TestApp;
let work: string;

beforeAll(async () => {
  const all = await exampleServers();
  t = await startTestApp({
    servers: { report: all.report, slow: all.slow, merge: all.merge, xfile: all.xfile },
  });
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-required-'));
  await writeFile(join(work, 'sales.csv'), CSV);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

const run = (args: string[]) => ferry(t.url, args, { cwd: work });

async function callsAndFiles(): Promise<{ calls: number; files: number }> {
  const calls = (await http(t.url, '/api/calls')).json<{ total: number }>().total;
  const files = (await http(t.url, '/api/files?allVersions=true')).json<{ total: number }>().total;
  return { calls, files };
}

describe('ferry call: required parameters', () => {
  it(
    'a missing file: exit 2 naming --file and the parameter, no call made',
    async () => {
      const before = await callsAndFiles();
      const result = await run(['call', 'report', 'csv_report', '--arg', 'title=Q3']);
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain('report csv_report: missing required arguments, nothing was sent');
      expect(result.stderr).toMatch(/filename: a file, --file filename=<path>/);
      // username is filled by the host: never asked of the user.
      expect(result.stderr).not.toContain('username');
      expect(result.stdout).toBe('');
      expect(await callsAndFiles()).toEqual(before);
    },
    SLOW,
  );

  it(
    'names every missing argument at once, with its type',
    async () => {
      const before = await callsAndFiles();
      const result = await run(['call', 'slow', 'slow_task']);
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain('seconds: --arg seconds=<number>');
      expect(result.stderr).toContain('steps: --arg steps=<integer>');
      const one = await run(['call', 'slow', 'slow_task', '--arg', 'seconds=0.1']);
      expect(one.code).toBe(EXIT.usage);
      expect(one.stderr).not.toContain('seconds:');
      expect(one.stderr).toContain('steps: --arg steps=<integer>');
      expect(await callsAndFiles()).toEqual(before);
    },
    SLOW,
  );

  it(
    'x-mcp-file inputs and filenames lists: --file is named, --arg cannot fill an x-mcp-file input',
    async () => {
      const before = await callsAndFiles();
      const image = await run([
        'call',
        'xfile',
        'describe_image',
        '--arg',
        'image=data:image/png;base64,AA==',
      ]);
      expect(image.code).toBe(EXIT.usage);
      expect(image.stderr).toContain('image: a file, --file image=<path>');
      const merge = await run(['call', 'merge', 'merge_csv']);
      expect(merge.code).toBe(EXIT.usage);
      expect(merge.stderr).toContain('filenames: one or more files, --file filenames=<path>');
      expect(await callsAndFiles()).toEqual(before);
    },
    SLOW,
  );

  it(
    'a missing local file stops the command before any other file is uploaded',
    async () => {
      const before = await callsAndFiles();
      const result = await run(['call', 'merge', 'merge_csv', '--file', 'sales.csv', '--file', 'nope.csv']);
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain('No such file: nope.csv');
      expect(result.stderr).not.toContain('uploaded sales.csv');
      expect(await callsAndFiles()).toEqual(before);
    },
    SLOW,
  );

  it(
    'a file named from My Files with --arg satisfies the check, and the call runs',
    async () => {
      await uploadOk(t.url, 'stored.csv', CSV);
      const before = await callsAndFiles();
      const result = await run(['--json', 'call', 'report', 'csv_report', '--arg', 'filename=stored.csv']);
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'finished' });
      expect((await callsAndFiles()).calls).toBe(before.calls + 1);
    },
    SLOW,
  );
});
