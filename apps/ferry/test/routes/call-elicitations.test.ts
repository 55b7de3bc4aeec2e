// Answering a server's question over HTTP: the xfile example's review_document asks mid-call for a
// document (an x-mcp-file field); the question arrives as an SSE event, the answer is a POST with
// a My Files id, and the tool receives exactly the uploaded bytes.
import { createHash } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream, type SseEvent } from '../../src/cli/sse-reader.js';
import { asUser, http, PROXY_AUTH, startTestApp, type TestApp, uploadOk } from '../support/start-app.js';

const ALICE = asUser('alice');
const BOB = asUser('bob');
const CSV = 'region,sales\nNorth,120\n';
const JSON_BODY = { 'content-type': 'application/json' };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { auth: PROXY_AUTH } });
}, 60_000);
afterAll(async () => t?.close());

interface ElicitationEvent {
  type: 'elicitation';
  callId: string;
  elicitationId: string;
  message: string;
  fileFields: { name: string; accept?: string[] }[];
}

/** Starts review_document and reads its events until the question arrives. */
async function askedQuestion(): Promise<ElicitationEvent> {
  const started = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { ...ALICE, ...JSON_BODY },
    body: JSON.stringify({ server: 'xfile', tool: 'review_document', arguments: { purpose: 'audit' } }),
  });
  expect(started.status, started.text).toBe(202);
  const { callId } = started.json<{ callId: string }>();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), { headers: ALICE }, resolve).on('error', reject);
  });
  let question: ElicitationEvent | undefined;
  await parseStream(response, (event: SseEvent) => {
    const body = JSON.parse(event.data) as { type: string };
    if (body.type === 'elicitation') {
      question = body as ElicitationEvent;
      response.destroy();
    }
  }).catch(() => undefined);
  if (!question) throw new Error('the call ended without asking');
  return question;
}

async function outcome(callId: string) {
  // The call settles right after the answer reaches the tool; its events end with it.
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(new URL(`/api/calls/${callId}/events`, t.url), { headers: ALICE }, resolve).on('error', reject);
  });
  await parseStream(response, () => {}).catch(() => undefined);
  return (await http(t.url, `/api/calls/${callId}`, { headers: ALICE })).json<{
    status: string;
    response: { forModel: { results: Record<string, unknown> } };
  }>();
}

describe('POST /api/calls/:id/elicitations/:elicitationId', () => {
  it('answers a file question with a My Files id; bad answers are 4xx and leave it open', async () => {
    const csv = await uploadOk(t.url, 'sales.csv', CSV, ALICE);
    const png = await uploadOk(
      t.url,
      'logo.png',
      Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
      ALICE,
    );
    const bobs = await uploadOk(t.url, 'bob.csv', 'b\n', BOB);
    const question = await askedQuestion();
    expect(question.message).toBe('Which document should I use for the audit?');
    expect(question.fileFields).toMatchObject([{ name: 'document', accept: ['text/csv', 'text/plain'] }]);

    const path = `/api/calls/${question.callId}/elicitations/${question.elicitationId}`;
    const post = (body: unknown, headers: Record<string, string> = ALICE) =>
      http(t.url, path, {
        method: 'POST',
        headers: { ...headers, ...JSON_BODY },
        body: JSON.stringify(body),
      });

    const wrongType = await post({ action: 'accept', files: { document: png.id } });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json()).toMatchObject({ meta_data: { error_code: 'E_FILE_TYPE_REJECTED' } });
    expect((await post({ action: 'accept', files: { document: bobs.id } })).status).toBe(404);
    expect((await post({ action: 'maybe' })).status).toBe(400);
    expect((await post({ action: 'accept', files: { document: 'not-an-id' } })).status).toBe(400);
    expect(
      (await post({ action: 'accept', content: { urgent: 'yes' }, files: { document: csv.id } })).status,
    ).toBe(400);
    // Bob cannot see Alice's call, so cannot answer for her.
    expect((await post({ action: 'decline' }, BOB)).status).toBe(404);

    const ok = await post({
      action: 'accept',
      content: { note: 'ok', urgent: false },
      files: { document: csv.id },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json()).toEqual({ answered: true });
    expect((await post({ action: 'decline' })).status).toBe(404);

    const done = await outcome(question.callId);
    expect(done.status).toBe('finished');
    expect(done.response.forModel.results).toMatchObject({
      action: 'accept',
      name: null, // no `name=` in the data URI (SEP-2356 final)
      byte_size: CSV.length,
      sha256: createHash('sha256').update(CSV).digest('hex'),
      note: 'ok',
      urgent: false,
    });
  });

  it('a decline goes through', async () => {
    const question = await askedQuestion();
    const path = `/api/calls/${question.callId}/elicitations/${question.elicitationId}`;
    const declined = await http(t.url, path, {
      method: 'POST',
      headers: { ...ALICE, ...JSON_BODY },
      body: JSON.stringify({ action: 'decline' }),
    });
    expect(declined.status).toBe(200);
    expect((await outcome(question.callId)).response.forModel.results).toEqual({ action: 'decline' });
  });
});
