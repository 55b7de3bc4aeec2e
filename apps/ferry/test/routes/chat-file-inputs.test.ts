// SEP-2356 x-mcp-file inputs in the chat, over real HTTP: a started Ferry with the xfile example
// server, the agent pointed at the scripted OpenAI-compatible model on loopback. The model sees a
// file-name slot, never a URI; a named file is resolved among the user's files and checked, and
// the call waits (`file_request`) until the user approves or picks the file through
// POST /api/conversations/{id}/file-requests/{requestId}. The tool reports the SHA-256 of what it
// received, so each test knows exactly which bytes arrived.
import { createHash } from 'node:crypto';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatApp,
  type ChatEvent,
  JSON_TYPE,
  sendChatMessage,
  startChatApp,
} from '../support/chat-app.js';
import {
  ALICE,
  BOB,
  exampleServers,
  type FileJson,
  type HttpResult,
  http,
  uploadOk,
} from '../support/start-app.js';

const TOOL = 'xfile__fingerprint_document';
const NOTES = 'id,note\n1,ship the release\n2,write the docs\n';
const PICKED = 'picked by hand\nsecond line\n';
// 8×8 PNG signature and header: a real image, of a type the document input does not accept.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000008000000080806000000c40fbe8b', 'hex');

async function startFerry(model: ScriptedModelServer): Promise<ChatApp> {
  const { xfile } = await exampleServers();
  return startChatApp({ model, servers: { xfile }, apiKey: 'sk-chat-files-key' });
}

/** POSTs a message and reads the whole SSE reply; `onEvent` sees each event as it arrives. */
const send = async (
  base: string,
  conversationId: string,
  text: string,
  onEvent?: (event: ChatEvent) => void,
) => (await sendChatMessage(base, conversationId, { text }, onEvent)).events;

/** A tool result as the model reads it (tool-result.ts). */
interface ToolResult {
  status: string;
  results: Record<string, unknown>;
  error: { code: string; message: string };
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('x-mcp-file inputs in the chat', () => {
  let f: ChatApp;
  let model: ScriptedModelServer;
  let notes: FileJson;
  let picked: FileJson;
  let photo: FileJson;
  let big: FileJson;
  let bobs: FileJson;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    f = await startFerry(model);
    notes = await uploadOk(f.url, 'notes.csv', NOTES, { ...ALICE, 'content-type': 'text/csv' });
    picked = await uploadOk(f.url, 'picked.txt', PICKED, { ...ALICE, 'content-type': 'text/plain' });
    photo = await uploadOk(f.url, 'photo.png', PNG, { ...ALICE, 'content-type': 'image/png' });
    // One byte over the tool's maxSize (1 MiB).
    big = await uploadOk(f.url, 'big.csv', `a\n${'1'.repeat(1024 * 1024 - 1)}`, {
      ...ALICE,
      'content-type': 'text/csv',
    });
    bobs = await uploadOk(f.url, 'bob.csv', 'bob,secret\n', { ...BOB, 'content-type': 'text/csv' });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await model?.close();
  });

  const conversation = async () =>
    (
      await http(f.url, '/api/conversations', {
        method: 'POST',
        headers: { ...ALICE, ...JSON_TYPE },
        body: '{}',
      })
    ).json<{ id: string }>().id;
  const answer = (id: string, requestId: string, body: unknown, headers = ALICE) =>
    http(f.url, `/api/conversations/${id}/file-requests/${requestId}`, {
      method: 'POST',
      headers: { ...headers, ...JSON_TYPE },
      body: JSON.stringify(body),
    });
  const fingerprintCalls = async () =>
    (await http(f.url, '/api/calls?limit=1000', { headers: ALICE }))
      .json<{ items: { tool: string }[] }>()
      .items.filter((call) => call.tool === 'fingerprint_document').length;
  /** The tool results the model read in its n-th request, parsed. */
  const toolResults = async (n: number) =>
    ((await model.request(n)).body.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string) as ToolResult);
  const noDataUriReachedTheModel = () => {
    for (const request of model.requests) expect(request.raw).not.toContain('data:');
  };

  it('shows the model a file-name slot; a named file goes out only after the user approves it', async () => {
    const id = await conversation();
    model.play([
      { toolCalls: [{ id: 'f1', name: TOOL, arguments: { document: 'notes.csv' } }] },
      { text: ['Fingerprinted.'] },
    ]);
    const before = await fingerprintCalls();
    let approved: Promise<{ callsWhileWaiting: number; result: HttpResult }> | undefined;
    const events = await send(f.url, id, 'Fingerprint notes.csv', (event) => {
      if (event.event !== 'file_request') return;
      approved = (async () => ({
        callsWhileWaiting: await fingerprintCalls(),
        result: await answer(id, event.data.requestId as string, {
          action: 'accept',
          files: { document: notes.id },
        }),
      }))();
    });
    const { callsWhileWaiting, result } = (await approved) ?? {};
    expect(result?.status, result?.text).toBe(200);
    expect(result?.json()).toEqual({ answered: true });
    // Nothing went to the server while the user had not answered.
    expect(callsWhileWaiting).toBe(before);
    expect(await fingerprintCalls()).toBe(before + 1);

    // The model's tool: `document` is an optional name, not a URI.
    const offered = (await model.request(1)).body.tools?.find((t) => t.function.name === TOOL)?.function;
    const document = (offered?.parameters.properties as Record<string, Record<string, unknown>> | undefined)
      ?.document;
    expect(document?.type).toBe('string');
    expect(document?.format).toBeUndefined();
    expect(document?.description).toMatch(/^Name of a file in the user's files/);
    expect(document?.description).toContain('accepts text/csv, text/plain, at most 1 MiB');
    expect(offered?.parameters.required ?? []).not.toContain('document');

    const request = events.find((e) => e.event === 'file_request')?.data;
    expect(request).toEqual({
      type: 'file_request',
      toolCallId: 'f1',
      requestId: expect.any(String),
      server: 'xfile',
      tool: 'fingerprint_document',
      inputs: [
        {
          name: 'document',
          description: 'The document to fingerprint',
          accept: ['text/csv', 'text/plain'],
          maxSize: 1024 * 1024,
          multiple: false,
          required: true,
          proposed: [{ id: notes.id, name: 'notes.csv', size: notes.size, mime: 'text/csv' }],
        },
      ],
    });
    expect(events.find((e) => e.event === 'file_request_answered')?.data).toMatchObject({
      toolCallId: 'f1',
      action: 'accept',
      files: [{ argument: 'document', id: notes.id, name: 'notes.csv' }],
    });
    const order = events.map((e) => e.event);
    expect(order.indexOf('tool_call_started')).toBeLessThan(order.indexOf('file_request'));
    expect(order.indexOf('file_request_answered')).toBeLessThan(order.indexOf('tool_call_event'));
    expect(events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });

    // Exactly the approved file's bytes arrived; the model read the fingerprint, never the bytes.
    const [read] = await toolResults(2);
    expect(read?.status).toBe('finished');
    expect(read?.results).toMatchObject({
      media_type: 'text/csv',
      byte_size: Buffer.byteLength(NOTES),
      sha256: sha256(NOTES),
      first_line: 'id,note',
    });
    expect(read?.results.sha256).toBe(notes.sha256);
    noDataUriReachedTheModel();
  });

  it('asks the user when the model names no file, and the picked file is what the tool gets', async () => {
    const id = await conversation();
    model.play([{ toolCalls: [{ id: 'f2', name: TOOL, arguments: {} }] }, { text: ['Done.'] }]);
    let picking: Promise<HttpResult> | undefined;
    const events = await send(f.url, id, 'Fingerprint a file I will choose', (event) => {
      if (event.event === 'file_request') {
        picking = answer(id, event.data.requestId as string, {
          action: 'accept',
          files: { document: picked.id },
        });
      }
    });
    expect((await picking)?.status).toBe(200);
    const inputs = events.find((e) => e.event === 'file_request')?.data.inputs as { proposed: unknown[] }[];
    expect(inputs[0]?.proposed).toEqual([]);
    const [read] = await toolResults(2);
    expect(read?.results).toMatchObject({ media_type: 'text/plain', sha256: sha256(PICKED) });
    noDataUriReachedTheModel();
  });

  it('tells the model the user declined, and runs nothing', async () => {
    const id = await conversation();
    model.play([{ toolCalls: [{ id: 'f3', name: TOOL, arguments: {} }] }, { text: ['Understood.'] }]);
    const before = await fingerprintCalls();
    let declining: Promise<HttpResult> | undefined;
    const events = await send(f.url, id, 'Fingerprint something', (event) => {
      if (event.event === 'file_request')
        declining = answer(id, event.data.requestId as string, { action: 'decline' });
    });
    expect((await declining)?.status).toBe(200);
    expect(events.find((e) => e.event === 'file_request_answered')?.data).toMatchObject({
      action: 'decline',
      files: [],
    });
    expect(events.find((e) => e.event === 'tool_call_finished')?.data).toMatchObject({
      toolCallId: 'f3',
      status: 'rejected',
      error: { code: 'E_CANCELLED' },
    });
    const [read] = await toolResults(2);
    expect(read?.error.message).toMatch(/^The user declined to provide a file for "document"/);
    expect(await fingerprintCalls()).toBe(before);
  });

  it('answers a name that does not resolve or fit with a clear error to the model, sending nothing', async () => {
    const id = await conversation();
    model.play([
      {
        toolCalls: [
          { id: 'missing', name: TOOL, arguments: { document: 'nowhere.csv' } },
          { id: 'type', name: TOOL, arguments: { document: 'photo.png' } },
          { id: 'size', name: TOOL, arguments: { document: 'big.csv' } },
          { id: 'bob', name: TOOL, arguments: { document: 'bob.csv' } },
          { id: 'uri', name: TOOL, arguments: { document: 'data:text/csv,a%2Cb' } },
        ],
      },
      { text: ['Those did not work.'] },
    ]);
    const before = await fingerprintCalls();
    const events = await send(f.url, id, 'Fingerprint these');
    expect(events.some((e) => e.event === 'file_request')).toBe(false);
    expect(await fingerprintCalls()).toBe(before);
    const read = await toolResults(2);
    expect(read.map((r) => r.error.code)).toEqual([
      'E_FILE_NOT_FOUND',
      'E_FILE_TYPE_REJECTED',
      'E_FILE_TOO_LARGE',
      // Another user's file is not there for Alice: the same answer as a name that never was.
      'E_FILE_NOT_FOUND',
      'E_INVALID_INPUT',
    ]);
    expect(read[0]?.error.message).toBe(
      `No file named "nowhere.csv" in the user's files. Nothing was sent to xfile › fingerprint_document. Give the name of another file from the available files, or leave "document" out to let the user pick the file.`,
    );
    expect(read[1]?.error.message).toMatch(
      /^photo\.png \(image\/png\) is not one of: text\/csv, text\/plain/,
    );
    expect(read[2]?.error.message).toMatch(
      new RegExp(`^big\\.csv is ${big.size} bytes; the limit is 1048576 bytes`),
    );
    expect(read[4]?.error.message).toMatch(/not a data URI: Ferry encodes the file itself/);
    expect(photo.mime).toBe('image/png');
    for (const e of events.filter((x) => x.event === 'tool_call_finished'))
      expect(e.data.status).toBe('rejected');
  });

  it("refuses another user's file, a wrong file and a missing one in the answer; the request stays open", async () => {
    const id = await conversation();
    model.play([{ toolCalls: [{ id: 'f4', name: TOOL, arguments: {} }] }, { text: ['Done.'] }]);
    const before = await fingerprintCalls();
    let tries: Promise<{ status: number; code?: string }[]> | undefined;
    const events = await send(f.url, id, 'Fingerprint', (event) => {
      if (event.event !== 'file_request') return;
      const requestId = event.data.requestId as string;
      tries = (async () => {
        const results: { status: number; code?: string }[] = [];
        let accepted = false;
        const attempt = async (body: unknown, headers = ALICE) => {
          const result = await answer(id, requestId, body, headers);
          results.push({
            status: result.status,
            code: result.json<{ meta_data?: { error_code: string } }>().meta_data?.error_code,
          });
          // Nothing is sent while the answers are refused.
          if (result.status === 200) accepted = true;
          if (!accepted) expect(await fingerprintCalls()).toBe(before);
        };
        await attempt({ action: 'accept', files: { document: bobs.id } });
        await attempt({ action: 'accept', files: { document: bobs.id } }, BOB);
        await attempt({ action: 'accept', files: { document: photo.id } });
        await attempt({ action: 'accept', files: { document: big.id } });
        await attempt({ action: 'accept', files: {} });
        await attempt({ action: 'accept', files: { document: 'not-a-uuid' } });
        await attempt({ action: 'accept', files: { document: picked.id }, extra: 1 });
        await attempt({ action: 'accept', files: { document: picked.id } });
        await attempt({ action: 'accept', files: { document: notes.id } });
        return results;
      })();
    });
    expect(await tries).toEqual([
      { status: 404, code: 'E_FILE_NOT_FOUND' },
      { status: 404, code: 'E_NOT_FOUND' },
      { status: 415, code: 'E_FILE_TYPE_REJECTED' },
      { status: 413, code: 'E_FILE_TOO_LARGE' },
      { status: 400, code: 'E_INVALID_INPUT' },
      { status: 400, code: 'E_INVALID_INPUT' },
      { status: 400, code: 'E_INVALID_INPUT' },
      { status: 200, code: undefined },
      // Answered already: the first answer wins.
      { status: 404, code: 'E_NOT_FOUND' },
    ]);
    expect(events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
    const [read] = await toolResults(2);
    expect(read?.results.sha256).toBe(sha256(PICKED));
  });

  it('stopping the turn while it waits cancels the request', async () => {
    const id = await conversation();
    model.play([{ toolCalls: [{ id: 'f5', name: TOOL, arguments: {} }] }]);
    let late: Promise<{ cancel: HttpResult; answer: HttpResult }> | undefined;
    const events = await send(f.url, id, 'Fingerprint', (event) => {
      if (event.event !== 'file_request') return;
      late = (async () => {
        const cancel = await http(f.url, `/api/conversations/${id}/cancel`, {
          method: 'POST',
          headers: ALICE,
        });
        return {
          cancel,
          answer: await answer(id, event.data.requestId as string, {
            action: 'accept',
            files: { document: notes.id },
          }),
        };
      })();
    });
    const settled = await late;
    expect(settled?.cancel.status).toBe(202);
    expect(settled?.answer.status).toBe(404);
    expect(events.find((e) => e.event === 'file_request_answered')?.data.action).toBe('cancel');
    expect(events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'cancelled' });
    expect(model.requests).toHaveLength(1);
  });
});
