// Chat turns across two instances sharing Redis (issue 22, step 9): a turn streamed by A is
// followed through B (same events, same ids, replay from Last-Event-ID), shown running on B, refused
// a second message through B, cancelled through B; a page that reloads onto B picks the turn up
// (the POST stream gone, the turn runs on for the grace and B's follower takes it to the end); a
// turn nobody follows stops after the grace; a file request of a turn on A is answered through B.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createAgent, createOpenAiCompatibleModelClient } from '@ferry/agent';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import { createConversation, JSON_TYPE, sendChatMessage } from '../support/chat-app.js';
import { openSse } from '../support/sse.js';
import { ALICE, exampleServers, http, uploadOk } from '../support/start-app.js';
import { startTestCluster, useTestCluster } from '../support/start-cluster.js';

const GRACE_MS = 3_000;

let model: ScriptedModelServer;

// Registered before the cluster's hooks: the model starts first and closes after the cluster.
beforeAll(async () => {
  model = await startScriptedModelServer();
}, 60_000);

afterAll(async () => {
  await model?.close();
});

const ctx = useTestCluster(async () => {
  const { slow, xfile } = await exampleServers();
  return startTestCluster({
    app: { auth: { mode: 'proxy', proxySecret: 'test-proxy-secret-0123456789' } },
    servers: { slow, xfile },
    deps: ({ host, storage, dir }) => ({
      agent: createAgent({
        model: createOpenAiCompatibleModelClient({
          baseURL: model.baseURL,
          apiKey: 'sk-chat-test-key',
          model: 'scripted-1',
          maxRetries: 0,
        }),
        host,
        files: storage.files,
        hostPaths: [dir],
      }),
      conversations: storage.conversations,
      chatDetachGraceMs: GRACE_MS,
    }),
  });
});

interface TurnEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Reads a turn's SSE stream; `stop` may end the reading early (the connection is dropped). */
async function readTurn(
  response: IncomingMessage,
  stop?: (event: TurnEvent) => boolean,
): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  await parseStream(response, (event) => {
    const parsed = { id: Number(event.id), event: event.event, data: JSON.parse(event.data) };
    expect(parsed.data.type).toBe(parsed.event);
    events.push(parsed);
    if (stop?.(parsed)) response.destroy();
  }).catch(() => undefined);
  return events;
}

/** POSTs a message and hands back the open SSE response. */
function postMessage(base: string, conversationId: string, text: string): Promise<IncomingMessage> {
  const payload = JSON.stringify({ text });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(`/api/conversations/${conversationId}/messages`, base),
      { method: 'POST', headers: { ...ALICE, ...JSON_TYPE, 'content-length': Buffer.byteLength(payload) } },
      resolve,
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const followTurn = (base: string, conversationId: string, after?: number) =>
  openSse(
    base,
    `/api/conversations/${conversationId}/turn`,
    after === undefined ? ALICE : { ...ALICE, 'last-event-id': String(after) },
  );

const detail = async (base: string, id: string) =>
  (await http(base, `/api/conversations/${id}`, { headers: ALICE })).json<{
    running: boolean;
    messages: { role: string; text?: string; status?: string }[];
  }>();

const slowCall = (seconds: number) => ({
  toolCalls: [{ id: 'call-1', name: 'slow__slow_task', arguments: { seconds, steps: 3 } }],
});

describe('chat turns shared through Redis', () => {
  it('a turn on A is followed, shown running, refused a second message and cancelled through B', async () => {
    const id = await createConversation(ctx.a);
    model.play([{ text: ['Thinking', ' hard'], hold: true }]);
    const posted = await postMessage(ctx.a, id, 'long answer');
    const onA: TurnEvent[] = [];
    const readingA = readTurn(posted).then((events) => onA.push(...events));
    await model.request(1);

    const onB = readTurn(await followTurn(ctx.b, id));
    await expect.poll(async () => (await detail(ctx.b, id)).running).toBe(true);
    const listed = (await http(ctx.b, '/api/conversations', { headers: ALICE })).json<{
      items: { id: string; running: boolean }[];
    }>();
    expect(listed.items.find((item) => item.id === id)?.running).toBe(true);
    const conflict = await sendChatMessage(ctx.b, id, { text: 'again' });
    expect(conflict.status).toBe(409);

    const cancel = await http(ctx.b, `/api/conversations/${id}/cancel`, { method: 'POST', headers: ALICE });
    expect(cancel.status, cancel.text).toBe(202);
    expect(cancel.json()).toEqual({ cancelled: true });
    await readingA;
    const followed = await onB;
    // B saw what A streamed: the same events with the same ids, ending cancelled.
    expect(followed.map((event) => [event.id, event.event])).toEqual(
      onA.map((event) => [event.id, event.event]),
    );
    expect(followed.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'cancelled' });
    expect((await detail(ctx.b, id)).running).toBe(false);
    // Replayed through B after the end, from an id: the rest, then the stream ends.
    const replayed = await readTurn(await followTurn(ctx.b, id, 2));
    expect(replayed.map((event) => event.id)).toEqual(onA.slice(2).map((event) => event.id));
  });

  it('a page reloaded onto B takes its turn to the end: the POST stream gone, the turn ran on', async () => {
    const id = await createConversation(ctx.a);
    model.play([slowCall(1.2), { text: ['All', ' done'] }]);
    const before = await readTurn(
      await postMessage(ctx.a, id, 'run the slow task'),
      (event) => event.event === 'tool_call_started',
    );
    const lastSeen = before.at(-1)?.id as number;
    expect(before.at(-1)?.event).toBe('tool_call_started');

    const after = await readTurn(await followTurn(ctx.b, id, lastSeen));
    expect(after[0]?.id).toBe(lastSeen + 1);
    expect(after.map((event) => event.event)).toContain('tool_call_finished');
    expect(after.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
    const ids = [...before, ...after].map((event) => event.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const messages = (await detail(ctx.a, id)).messages;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'All done' });
  });

  it('a turn whose client left and that nobody follows stops after the grace', async () => {
    const id = await createConversation(ctx.a);
    model.play([{ text: ['Alone'], hold: true }]);
    const started = Date.now();
    await readTurn(await postMessage(ctx.a, id, 'anyone?'), (event) => event.event === 'token');
    await (await model.request(1)).closed;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(model.requests[0]?.aborted).toBe(true);
    await expect.poll(async () => (await detail(ctx.b, id)).running).toBe(false);
    expect((await detail(ctx.b, id)).messages.at(-1)).toMatchObject({
      role: 'assistant',
      status: 'cancelled',
    });
  });

  it('a file request of a turn on A is answered through B', async () => {
    const csv = await uploadOk(ctx.b, 'sales.csv', 'region,sales\nNorth,120\n', ALICE);
    const id = await createConversation(ctx.a);
    model.play([
      {
        toolCalls: [{ id: 'call-1', name: 'xfile__fingerprint_document', arguments: {} }],
      },
      { text: ['Fingerprinted'] },
    ]);
    let requestId: string | undefined;
    let answering: Promise<{ status: number; text: string }> | undefined;
    const posted = await postMessage(ctx.a, id, 'fingerprint my csv');
    const events = readTurn(posted, (event) => {
      if (event.event === 'file_request' && !requestId) {
        requestId = event.data.requestId as string;
        const inputs = event.data.inputs as { name: string }[];
        answering = http(ctx.b, `/api/conversations/${id}/file-requests/${requestId}`, {
          method: 'POST',
          headers: { ...ALICE, ...JSON_TYPE },
          body: JSON.stringify({ action: 'accept', files: { [inputs[0]?.name as string]: csv.id } }),
        });
      }
      return false;
    });
    const all = await events;
    const answered = await answering;
    expect(answered?.status, answered?.text).toBe(200);
    expect(all.map((event) => event.event)).toContain('file_request_answered');
    expect(all.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
  });
});
