// The elicitation bridge end to end: the xfile example asks mid-call (form mode) for a document
// through an x-mcp-file field; the host emits the question as an event, the user answers with a My
// Files id, and the server receives the file's bytes as a data URI. Each case runs three ways: over
// stdio on 2026-07-28 (multi round-trip: the question is an `input_required` result and the call is
// retried with the answer), over stdio pinned to 2025-11-25 (a real `elicitation/create` request,
// the SDK's legacy shim on the server side), and over Streamable HTTP (2026-07-28).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type CallEvent, FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/host.js';
import {
  answerQuestion,
  type ExampleHost,
  elicitationServers,
  type Question,
  startAskingCall,
  startExampleHost,
} from '../support/example-host.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\n';
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

let env: ExampleHost;
let host: Host;
const owners: Record<string, string> = {};
const fileIds: Record<string, string> = {};

beforeAll(async () => {
  env = await startExampleHost({
    server: 'xfile',
    prefix: 'ferry-elicit-',
    servers: (xfile, remote) => elicitationServers('xfile', xfile, remote),
    host: { elicitationTimeoutSeconds: 5 },
  });
  const { storage } = env;
  host = env.host;
  for (const name of ['alice', 'bob']) owners[name] = await storage.files.ensureUser(name);
  const put = async (owner: string, name: string, bytes: Buffer, mime: string) =>
    (await storage.files.put(owner, name, Readable.from([bytes]), { mime })).id;
  fileIds.csv = await put(owners.alice as string, 'sales.csv', Buffer.from(CSV), 'text/csv');
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  fileIds.png = await put(owners.alice as string, 'logo.png', png, 'image/png');
  fileIds.bobs = await put(owners.bob as string, 'bob.csv', Buffer.from('b\n1\n'), 'text/csv');
}, 60_000);

afterAll(() => env?.close());

/** Starts `tool` of `server` and resolves with the question once it is asked. */
const startReview = (server: string, tool = 'review_document') =>
  startAskingCall(host, {
    user: { owner: owners.alice as string, username: 'alice' },
    server,
    tool,
    arguments: tool === 'review_document' ? { purpose: 'Q3 review' } : {},
  });

/** Answers the question as alice; `fields` add to or override that (wrong answers included). */
const reply = (
  asked: Question,
  action: 'accept' | 'decline' | 'cancel',
  fields: Record<string, unknown> = {},
) => answerQuestion(host, owners.alice as string, asked, action, fields);

const WAYS = [
  { way: 'stdio, 2026-07-28 (multi round-trip)', server: 'xfile', era: 'modern' },
  { way: 'stdio, 2025-11-25 (elicitation/create)', server: 'xfile-2025', era: 'legacy' },
  { way: 'Streamable HTTP, 2026-07-28 (multi round-trip)', server: 'xfile-http', era: 'modern' },
] as const;

describe.each(WAYS)('elicitation with a file field: $way', ({ server, era }) => {
  it('speaks the revision under test', async () => {
    const connection = await host.pool.get(server, 'alice');
    expect(connection.protocolEra).toBe(era);
  });

  it('asks with the form and its file fields, and delivers the picked file as a data URI', async () => {
    const { events, question, response } = startReview(server);
    const asked = await question;
    expect(asked.message).toBe('Which document should I use for the Q3 review?');
    expect(asked.fileFields).toEqual([
      { name: 'document', required: true, accept: ['text/csv', 'text/plain'], maxSize: 1024 * 1024 },
    ]);
    expect(asked.requestedSchema).toMatchObject({ properties: { note: { type: 'string' } } });

    const answer = (fields: Record<string, unknown>) => reply(asked, 'accept', fields);
    // Wrong answers are refused and the question stays open.
    await expect(answer({ files: { document: fileIds.png } })).rejects.toMatchObject({
      code: 'E_FILE_TYPE_REJECTED',
    });
    await expect(answer({ files: { document: fileIds.bobs } })).rejects.toMatchObject({
      code: 'E_FILE_NOT_FOUND',
    });
    await expect(answer({ content: { document: 'data:text/csv;base64,eA==' } })).rejects.toThrow(
      /document is a file field/,
    );
    await expect(answer({ content: { note: 'x' } })).rejects.toThrow(/Required: document/);
    await expect(answer({ files: { document: fileIds.csv }, content: { urgent: 'yes' } })).rejects.toThrow(
      /urgent must be a boolean/,
    );
    // Another user cannot answer it.
    expect(await reply(asked, 'decline', { owner: owners.bob as string })).toBe(false);

    expect(
      await answer({ files: { document: fileIds.csv }, content: { note: 'use Q3', urgent: true } }),
    ).toBe(true);
    const done = await response;
    expect(done.status).toBe('finished');
    expect(done.forModel.results).toEqual({
      action: 'accept',
      // SEP-2356 final: no `name=` in the data URI (xMcpFileNameParam is off).
      name: null,
      media_type: 'text/csv',
      byte_size: Buffer.byteLength(CSV),
      sha256: sha256(CSV),
      first_line: 'region,sales',
      note: 'use Q3',
      urgent: true,
    });
    // Answered once: a second answer finds nothing open.
    expect(await answer({ action: 'decline' })).toBe(false);
    const types = events.map((event) => event.type);
    expect(types.indexOf('elicitation')).toBeLessThan(types.indexOf('elicitation_answered'));
    expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'accept' });
    expect(types.at(-1)).toBe('finished');
  });

  it('a decline reaches the server as decline', async () => {
    const { question, response } = startReview(server);
    const asked = await question;
    await reply(asked, 'decline');
    expect((await response).forModel.results).toEqual({ action: 'decline' });
  });

  it('an accepted form left empty reaches the server as {}', async () => {
    const { question, response } = startReview(server, 'ask_note');
    const asked = await question;
    expect(asked.fileFields).toEqual([]);
    await reply(asked, 'accept');
    expect((await response).forModel.results).toEqual({ action: 'accept', content: {} });
  });

  it('a cancel of an optional form reaches the server as cancel, and a note as written', async () => {
    const first = startReview(server, 'ask_note');
    await reply(await first.question, 'cancel');
    expect((await first.response).forModel.results).toEqual({ action: 'cancel', content: null });
    const second = startReview(server, 'ask_note');
    await reply(await second.question, 'accept', { content: { note: 'ship it' } });
    expect((await second.response).forModel.results).toEqual({
      action: 'accept',
      content: { note: 'ship it' },
    });
  });

  it('the idle clock stands still while the user answers (1 s timeout, 2.5 s to answer)', async () => {
    const { events, question, response } = startReview(`${server}-quick`);
    const asked = await question;
    // A person taking their time: this wait is the behaviour under test, not a race.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await reply(asked, 'accept', { files: { document: fileIds.csv as string } });
    const done = await response;
    expect(done.status, JSON.stringify(done.forUi.error)).toBe('finished');
    expect(events.some((event) => event.type === 'notice')).toBe(false);
  });

  it('an unanswered question is cancelled at its timeout, and the server hears cancel', async () => {
    const { events, response } = startReview(server);
    const done = await response;
    expect(done.forModel.results).toEqual({ action: 'cancel' });
    expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'cancel' });
  }, 20_000);

  it('the user cancelling the call cancels the open question', async () => {
    const controller = new AbortController();
    const events: CallEvent[] = [];
    const response = host.callTool(
      {
        user: { owner: owners.alice as string, username: 'alice' },
        server,
        tool: 'review_document',
        arguments: {},
        signal: controller.signal,
      },
      (event) => {
        events.push(event);
        if (event.type === 'elicitation') controller.abort('changed my mind');
      },
    );
    const done = await response;
    expect(done.status).toBe('cancelled');
    expect(events.find((event) => event.type === 'elicitation_answered')).toMatchObject({ action: 'cancel' });
  });
});

it('FerryError is what a refused answer throws', async () => {
  // Keeps the API's mapping honest: answers fail with FerryError codes, not plain Errors.
  const { question, response } = startReview('xfile');
  const asked = await question;
  const refused = await reply(asked, 'accept', { files: { document: 'no-such-id' } }).catch(
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(FerryError);
  await reply(asked, 'cancel');
  expect((await response).forModel.results).toEqual({ action: 'cancel' });
});
