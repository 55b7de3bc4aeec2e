// A server's question during `ferry call`, through the real app and the xfile example server's
// `review_document` (an elicitation with an x-mcp-file field, a text and a boolean): answered from
// piped stdin, asked again on bad answers, declined with --no-input or at the end of input,
// cancelled, answered elsewhere while the CLI asks, interrupted; and Ferry refusing an answer.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/cli/api-client.js';
import type { ElicitationQuestion } from '../../src/cli/elicitation-form.js';
import { createQuestions } from '../../src/cli/elicitation-session.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { LineSource } from '../../src/cli/line-source.js';
import { followEvents } from '../../src/cli/sse-reader.js';
import {
  exampleServers,
  type FileJson,
  http,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';
import { ferry, startFerry } from './run-ferry.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\n';
const NOTES = 'first line of the notes\nsecond\n';
// A 1×1 PNG: stored as image/png, which the document field does not accept.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const SLOW = 120_000;
const PROMPT =
  /Document \(file: a local path to upload, or a My Files id or name; text\/csv, text\/plain; at most 1 MiB\): /;

let t: TestApp;
let work: string;

beforeAll(async () => {
  const all = await exampleServers();
  t = await startTestApp({ servers: { xfile: all.xfile } });
  work = await mkdtemp(join(tmpdir(), 'ferry-cli-ask-'));
  await writeFile(join(work, 'sales.csv'), CSV);
  await writeFile(join(work, 'pic.png'), PNG);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

interface Review {
  action: string;
  name?: string | null;
  sha256?: string;
  first_line?: string;
  note?: string | null;
  urgent?: boolean | null;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

function reviewOf(stdout: string): Review {
  return (JSON.parse(stdout) as { response: { forModel: { results: Review } } }).response.forModel.results;
}

async function storedNames(): Promise<string[]> {
  const listed = (await http(t.url, '/api/files?allVersions=true&limit=1000')).json<{ items: FileJson[] }>();
  return listed.items.map((file) => file.name).sort();
}

async function latestCall(): Promise<{ callId: string; status: string }> {
  const listed = (await http(t.url, '/api/calls?limit=1')).json<{
    items: { callId: string; status: string }[];
  }>();
  return listed.items[0] as { callId: string; status: string };
}

const REVIEW = ['--json', 'call', 'xfile', 'review_document', '--arg', 'purpose=audit'];

describe('ferry call: the tool asks', () => {
  it(
    'answers from piped stdin: the local file is uploaded and sent, the other fields filled',
    async () => {
      const result = await ferry(t.url, REVIEW, { cwd: work, input: 'sales.csv\nQ3 figures\ny\n' });
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain('? Which document should I use for the audit?');
      expect(result.stderr).toContain('type !decline to decline or !cancel to cancel');
      expect(result.stderr).toMatch(PROMPT);
      expect(result.stderr).toContain('Note (text; optional): Q3 figures');
      expect(result.stderr).toContain('answer sent');
      expect(reviewOf(result.stdout)).toEqual({
        action: 'accept',
        name: null, // no `name=` in the data URI (SEP-2356 final); sha256 tells the file
        media_type: 'text/csv',
        byte_size: CSV.length,
        sha256: sha256(CSV),
        first_line: 'region,sales',
        note: 'Q3 figures',
        urgent: true,
      });
      expect(await storedNames()).toContain('sales.csv');
    },
    SLOW,
  );

  it(
    'asks again after an unknown file, a file of the wrong type and a bad yes/no; a My Files name works',
    async () => {
      await uploadOk(t.url, 'notes.txt', NOTES);
      const result = await ferry(t.url, REVIEW, {
        cwd: work,
        input: 'nope.csv\npic.png\nnotes.txt\n\nperhaps\nn\n',
      });
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain('! no local file and no file in My Files called "nope.csv"');
      expect(result.stderr).toContain('! pic.png (image/png) is not one of: text/csv, text/plain');
      expect(result.stderr).toContain('! answer y or n');
      expect(reviewOf(result.stdout)).toMatchObject({
        action: 'accept',
        name: null,
        sha256: sha256(NOTES),
        note: null,
        urgent: false,
      });
      // The PNG was refused before it was uploaded.
      expect(await storedNames()).not.toContain('pic.png');
    },
    SLOW,
  );

  it(
    '--no-input declines without asking',
    async () => {
      const result = await ferry(t.url, [...REVIEW, '--no-input'], { cwd: work });
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain(
        'question declined (--no-input): Which document should I use for the audit?',
      );
      expect(result.stderr).not.toMatch(PROMPT);
      expect(reviewOf(result.stdout)).toEqual({ action: 'decline' });
    },
    SLOW,
  );

  it(
    'the end of input declines; !cancel cancels',
    async () => {
      const ended = await ferry(t.url, REVIEW, { cwd: work, input: '' });
      expect(ended.code, ended.stderr).toBe(EXIT.ok);
      expect(ended.stderr).toMatch(PROMPT);
      expect(ended.stderr).toContain('  declined');
      expect(reviewOf(ended.stdout)).toEqual({ action: 'decline' });

      const cancelled = await ferry(t.url, REVIEW, { cwd: work, input: 'sales.csv\n!cancel\n' });
      expect(cancelled.code, cancelled.stderr).toBe(EXIT.ok);
      expect(cancelled.stderr).toContain('  cancelled');
      expect(reviewOf(cancelled.stdout)).toEqual({ action: 'cancel' });
    },
    SLOW,
  );

  it(
    'stops asking when the question is answered elsewhere (the web app) and prints the result',
    async () => {
      const stored = await uploadOk(t.url, 'elsewhere.csv', CSV);
      const run = startFerry(t.url, REVIEW, { cwd: work });
      await run.waitForStderr(PROMPT);
      const { callId } = await latestCall();
      // The question's id, from the call's own event stream.
      const client = createApiClient({ url: t.url });
      const stop = new AbortController();
      let elicitationId = '';
      await followEvents(client, `/api/calls/${callId}/events`, {
        signal: stop.signal,
        onEvent: ({ event, data }) => {
          if (event !== 'elicitation') return;
          elicitationId = (JSON.parse(data) as { elicitationId: string }).elicitationId;
          stop.abort();
        },
      });
      const answer = await http(t.url, `/api/calls/${callId}/elicitations/${elicitationId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          action: 'accept',
          content: { note: 'from the web' },
          files: { document: stored.id },
        }),
      });
      expect(answer.status, answer.text).toBe(200);
      const result = await run.done;
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain('(question closed: accept)');
      expect(reviewOf(result.stdout)).toMatchObject({
        action: 'accept',
        name: null,
        sha256: sha256(CSV),
        note: 'from the web',
      });
    },
    SLOW,
  );

  it(
    'Ctrl-C while asking cancels the call: exit 130',
    async () => {
      const run = startFerry(t.url, REVIEW, { cwd: work });
      await run.waitForStderr(PROMPT);
      run.child.kill('SIGINT');
      const result = await run.done;
      expect(result.code).toBe(EXIT.interrupted);
      expect(result.stderr).toContain('cancelling');
      expect((await latestCall()).status).toBe('cancelled');
    },
    SLOW,
  );
});

describe('an answer Ferry refuses', () => {
  it(
    'is shown, and only the file field is asked again; the other answers are kept',
    async () => {
      const png = await uploadOk(t.url, 'refused.png', PNG);
      const csv = await uploadOk(t.url, 'accepted.csv', CSV);
      const client = createApiClient({ url: t.url });
      const { callId } = await client.json<{ callId: string }>('POST', '/api/calls', {
        server: 'xfile',
        tool: 'review_document',
        arguments: {},
      });
      const answers = ['first', 'kept note', 'y', 'second'];
      const transcript: string[] = [];
      const lines: LineSource = {
        terminal: false,
        ask: async (query) => {
          transcript.push(query);
          return answers.shift() ?? null;
        },
        say: (line) => transcript.push(line),
        idle: () => {},
        close: () => {},
      };
      const questions = createQuestions({
        client,
        callId,
        mode: 'ask',
        lines: () => lines,
        // Skips the CLI's own type check, so Ferry's is what refuses the PNG.
        resolveFile: async (answer) =>
          answer === 'first'
            ? { ok: true, id: png.id, name: png.name }
            : { ok: true, id: csv.id, name: csv.name },
        note: (line) => transcript.push(line),
      });
      await followEvents(client, `/api/calls/${callId}/events`, {
        onEvent: ({ event, data }) => {
          const body = JSON.parse(data) as Record<string, unknown>;
          if (event === 'elicitation') questions.asked(body as unknown as ElicitationQuestion);
          if (event === 'elicitation_answered')
            questions.answered(String(body.elicitationId), String(body.action));
        },
      });
      await questions.close();
      expect(answers).toEqual([]);
      expect(transcript.join('\n')).toMatch(
        /! File type not accepted: refused\.png \(image\/png\).*E_FILE_TYPE_REJECTED/,
      );
      // Asked: document, note, urgent, then document alone.
      expect(
        transcript.filter((line) => line.endsWith(': ')).map((line) => line.trim().split(' ')[0]),
      ).toEqual(['Document', 'Note', 'Urgent', 'Document']);
      const detail = await client.json<{ response: { forModel: { results: Review } } }>(
        'GET',
        `/api/calls/${callId}`,
      );
      expect(detail.response.forModel.results).toMatchObject({
        action: 'accept',
        name: null,
        sha256: sha256(CSV),
        note: 'kept note',
        urgent: true,
      });
    },
    SLOW,
  );
});
