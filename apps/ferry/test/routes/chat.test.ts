// The chat API over real HTTP: a started Ferry (storage on disk + SQLite, the report and slow
// example servers), the agent pointed at a scripted OpenAI-compatible server on loopback. Turns
// stream as server-sent events; conversations are stored, resumable, per user, deletable.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import {
  type ChatApp,
  createConversation,
  JSON_TYPE,
  sendChatMessage,
  startChatApp,
} from '../support/chat-app.js';
import { ALICE, BOB, exampleServers, http, uploadOk } from '../support/start-app.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\n';

async function startFerry(model: ScriptedModelServer | undefined): Promise<ChatApp> {
  const { report, slow } = await exampleServers();
  return startChatApp({
    model,
    servers: { report, slow },
    // One running call per user, so a model asking for two at once meets the registry's limit.
    calls: { maxRunningPerUser: 1 },
  });
}
const send = sendChatMessage;

describe('chat without a model', () => {
  let f: ChatApp;
  beforeAll(async () => {
    f = await startFerry(undefined);
  }, 60_000);
  afterAll(async () => f?.close());

  it('answers 503 E_MODEL_NOT_CONFIGURED; conversations and the tools API still work', async () => {
    const id = await createConversation(f.url);
    const result = await send(f.url, id, { text: 'hello' });
    expect(result.status).toBe(503);
    const envelope = JSON.parse(result.text);
    expect(envelope.meta_data.error_code).toBe('E_MODEL_NOT_CONFIGURED');
    expect(envelope.results.error).toBe('No model configured: chat is off on this server');
    expect(
      (await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).json<{ messages: unknown[] }>()
        .messages,
    ).toEqual([]);
    expect((await http(f.url, '/api/servers', { headers: ALICE })).status).toBe(200);
  });
});

describe('chat with the scripted model', () => {
  let f: ChatApp;
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await startScriptedModelServer();
    f = await startFerry(model);
    await uploadOk(f.url, 'sales.csv', CSV, { ...ALICE, 'content-type': 'text/csv' });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await model?.close();
  });

  it('streams a turn that calls the report tool, stores it and resumes it', async () => {
    const id = await createConversation(f.url);
    model.play([
      {
        text: ['Running ', 'the report.'],
        toolCalls: [
          { id: 'c1', name: 'report__csv_report', arguments: { filename: 'sales.csv', username: 'admin' } },
        ],
      },
      { text: ['Done: ', 'report.html'] },
    ]);
    const turn = await send(f.url, id, { text: 'Report on my sales please' });
    expect(turn.status).toBe(200);
    expect(turn.response.headers['x-ferry-session']).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    const types = turn.events.map((e) => e.event);
    expect(types[0]).toBe('message');
    expect(types[1]).toBe('turn_started');
    expect(types.at(-1)).toBe('turn_finished');
    expect(turn.events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
    expect(turn.events.map((e) => Number(e.id))).toEqual(turn.events.map((_, i) => i + 1));
    const tokens = turn.events.filter((e) => e.event === 'token').map((e) => e.data.delta);
    expect(tokens).toEqual(['Running ', 'the report.', 'Done: ', 'report.html']);
    const started = turn.events.find((e) => e.event === 'tool_call_started')?.data;
    expect(started).toMatchObject({
      toolCallId: 'c1',
      server: 'report',
      tool: 'csv_report',
      arguments: { filename: 'sales.csv' },
    });
    const stored = turn.events.filter(
      (e) => e.event === 'tool_call_event' && (e.data.event as { type: string }).type === 'file_stored',
    );
    expect(stored.map((e) => (e.data.event as { file: { name: string } }).file.name).sort()).toEqual([
      'chart.png',
      'notes.md',
      'report.html',
    ]);
    const finished = turn.events.find((e) => e.event === 'tool_call_finished')?.data as {
      callId: string;
      status: string;
      files: { name: string }[];
    };
    // The chat's call went through the call registry: listed with the tool runner's calls.
    const call = await http(f.url, `/api/calls/${finished.callId}`, { headers: ALICE });
    expect(call.json()).toMatchObject({
      callId: finished.callId,
      server: 'report',
      tool: 'csv_report',
      status: 'finished',
    });
    expect(finished.status).toBe('finished');
    expect(finished.files.map((x) => x.name).sort()).toEqual(['chart.png', 'notes.md', 'report.html']);
    expect(JSON.stringify(turn.events)).not.toContain('/tmp/');

    const detail = (await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).json<{
      title: string;
      messageCount: number;
      messages: { seq: number; role: string; text?: string; files?: { name: string }[] }[];
    }>();
    expect(detail.title).toBe('Report on my sales please');
    expect(detail.messages.map((m) => [m.seq, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'tool'],
      [4, 'assistant'],
    ]);
    expect(detail.messages[0]?.text).toBe('Report on my sales please');
    expect(JSON.stringify(detail)).not.toContain('[SYSTEM: Available files');
    expect(detail.messages[3]?.text).toBe('Done: report.html');

    // Resumed: the next turn sends the stored history, and the file block only with the new text.
    model.play([{ text: ['You are welcome.'] }]);
    const next = await send(f.url, id, { text: 'thanks' });
    expect(next.events.at(-1)?.data.status).toBe('completed');
    const sent = model.requests[0]?.body.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[1]?.content).toBe('Report on my sales please');
    expect(sent[5]?.content).toMatch(
      /^thanks\n\n\[SYSTEM: Available files in current session:\n- sales\.csv \(uploaded /,
    );
    const list = (await http(f.url, '/api/conversations', { headers: ALICE })).json<{
      total: number;
      items: { id: string; messageCount: number }[];
    }>();
    expect(list.items.find((c) => c.id === id)?.messageCount).toBe(6);
  });

  it('cancels a streaming turn (409 for a second message meanwhile) and keeps the partial answer', async () => {
    const id = await createConversation(f.url);
    model.play([{ text: ['Thinking', ' hard'], hold: true }]);
    let conflict: Promise<{ status: number; text: string }> | undefined;
    let cancel: Promise<{ status: number; text: string }> | undefined;
    const turn = await send(f.url, id, { text: 'long answer' }, (event) => {
      if (event.event === 'token' && event.data.delta === ' hard' && !cancel) {
        conflict = send(f.url, id, { text: 'again' });
        cancel = conflict.then(() =>
          http(f.url, `/api/conversations/${id}/cancel`, { method: 'POST', headers: ALICE }),
        );
      }
    });
    expect((await conflict)?.status).toBe(409);
    expect(JSON.parse((await conflict)?.text ?? '{}').meta_data.error_code).toBe('E_CONFLICT');
    const cancelled = await cancel;
    expect(cancelled?.status).toBe(202);
    expect(JSON.parse(cancelled?.text ?? '{}')).toEqual({ cancelled: true });
    expect(turn.events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'cancelled' });
    await model.requests[0]?.closed;
    expect(model.requests[0]?.aborted).toBe(true);
    const detail = (await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).json<{
      running: boolean;
      messages: { role: string; text?: string; status?: string }[];
    }>();
    expect(detail.running).toBe(false);
    expect(detail.messages.map((m) => [m.role, m.text, m.status])).toEqual([
      ['user', 'long answer', undefined],
      ['assistant', 'Thinking hard', 'cancelled'],
    ]);
    const again = await http(f.url, `/api/conversations/${id}/cancel`, { method: 'POST', headers: ALICE });
    expect(again.status).toBe(200);
    expect(again.json()).toEqual({ cancelled: false });
  });

  it("gives the model the registry's refusal when the user's running-call limit is reached", async () => {
    const id = await createConversation(f.url);
    model.play([
      {
        toolCalls: [
          { id: 'one', name: 'slow__slow_task', arguments: { seconds: 0.3, steps: 1 } },
          { id: 'two', name: 'slow__slow_task', arguments: { seconds: 0.3, steps: 1 } },
        ],
      },
      { text: ['One of them ran.'] },
    ]);
    const turn = await send(f.url, id, { text: 'two at once' });
    expect(turn.events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
    const results = (model.requests[1]?.body.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string));
    expect(results[0].status).toBe('finished');
    expect(results[1]).toMatchObject({
      status: 'failed',
      is_error: true,
      error: { code: 'E_TOO_MANY_CALLS' },
    });
  });

  it('deleting a conversation stops its running turn first', async () => {
    const id = await createConversation(f.url);
    model.play([{ text: ['Working'], hold: true }]);
    let deleted: Promise<{ status: number }> | undefined;
    const turn = await send(f.url, id, { text: 'go' }, (event) => {
      if (event.event === 'token' && !deleted) {
        deleted = http(f.url, `/api/conversations/${id}`, { method: 'DELETE', headers: ALICE });
      }
    });
    expect((await deleted)?.status).toBe(204);
    expect(turn.events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'cancelled' });
    await model.requests[0]?.closed;
    expect(model.requests[0]?.aborted).toBe(true);
    expect((await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).status).toBe(404);
  });

  it("keeps one user's conversations from another and deletes them", async () => {
    const id = await createConversation(f.url, ALICE, { title: 'private' });
    for (const [method, path, body] of [
      ['GET', `/api/conversations/${id}`, undefined],
      ['PATCH', `/api/conversations/${id}`, JSON.stringify({ title: 'mine now' })],
      ['DELETE', `/api/conversations/${id}`, undefined],
      ['POST', `/api/conversations/${id}/cancel`, undefined],
    ] as const) {
      const result = await http(f.url, path, {
        method,
        headers: { ...BOB, ...(body ? JSON_TYPE : {}) },
        ...(body ? { body } : {}),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.json<{ meta_data: { error_code: string } }>().meta_data.error_code).toBe('E_NOT_FOUND');
    }
    expect((await send(f.url, id, { text: 'hi' }, () => {}, BOB)).status).toBe(404);
    expect((await http(f.url, '/api/conversations', { headers: BOB })).json<{ total: number }>().total).toBe(
      0,
    );
    expect(
      (await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).json<{ title: string }>().title,
    ).toBe('private');

    const deleted = await http(f.url, `/api/conversations/${id}`, { method: 'DELETE', headers: ALICE });
    expect(deleted.status).toBe(204);
    expect((await http(f.url, `/api/conversations/${id}`, { headers: ALICE })).status).toBe(404);
  });

  it('rejects bad requests with clear 4xx envelopes, before the model is asked anything', async () => {
    const id = await createConversation(f.url);
    model.play([]);
    const bad = async (path: string, body: string | undefined, method = 'POST') => {
      const result = await http(f.url, path, {
        method,
        headers: { ...ALICE, ...JSON_TYPE },
        ...(body === undefined ? {} : { body }),
      });
      return {
        status: result.status,
        body: result.json<{ results: { error: string }; meta_data: { error_code: string } }>(),
      };
    };
    const cases: [string, string | undefined, number, RegExp][] = [
      [`/api/conversations/${id}/messages`, '{}', 400, /body\.text/],
      [`/api/conversations/${id}/messages`, '{"text":"   "}', 400, /text must not be empty/],
      [`/api/conversations/${id}/messages`, '{"text":"hi","model":"gpt"}', 400, /Invalid request/],
      [`/api/conversations/${id}/messages`, '{"text":', 400, /./],
      [
        `/api/conversations/${id}/messages`,
        JSON.stringify({ text: 'x'.repeat(100_001) }),
        400,
        /at most 100000/,
      ],
      ['/api/conversations/not-a-uuid/messages', '{"text":"hi"}', 400, /UUID/],
      [
        '/api/conversations/00000000-0000-4000-8000-000000000000/messages',
        '{"text":"hi"}',
        404,
        /No such conversation/,
      ],
      ['/api/conversations', JSON.stringify({ title: 't'.repeat(201) }), 400, /at most 200/],
    ];
    for (const [path, body, status, message] of cases) {
      const result = await bad(path, body);
      expect(result.status, `${path} ${body?.slice(0, 40)}`).toBe(status);
      expect(result.body.results.error).toMatch(message);
    }
    const query = await http(f.url, '/api/conversations?limit=0', { headers: ALICE });
    expect(query.status).toBe(400);
    expect(model.requests).toHaveLength(0);
  });

  it('describes the chat routes in the OpenAPI document', async () => {
    const doc = (await http(f.url, '/api/openapi.json')).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    expect(Object.keys(doc.paths['/api/conversations'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/conversations/{id}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    expect(doc.paths['/api/conversations/{id}/messages']?.post).toBeDefined();
    expect(doc.paths['/api/conversations/{id}/cancel']?.post).toBeDefined();
  });
});

describe('ferry start with FERRY_LLM_*', () => {
  it('prints the effective model and chats through the configured endpoint', async () => {
    const model = await startScriptedModelServer();
    const dir = await mkdtemp(join(tmpdir(), 'ferry-chat-start-'));
    const server = await startServer({
      cwd: dir,
      port: 0,
      env: {
        FERRY_LLM_BASE_URL: model.baseURL,
        FERRY_LLM_API_KEY: 'sk-start-key',
        FERRY_LLM_MODEL: 'scripted-9',
        FERRY_LLM_MAX_RETRIES: '0',
      },
    });
    try {
      const summary = server.summary.join('\n');
      expect(summary).toContain(`LLM      scripted-9 at ${model.baseURL}, up to 8 tool rounds`);
      expect(summary).not.toContain('sk-start-key');
      const dev = {};
      const id = await createConversation(server.url, dev);
      model.play([{ text: ['Hello ', 'from the model'] }]);
      const turn = await send(server.url, id, { text: 'hi' }, () => {}, dev);
      expect(turn.events.at(-1)?.data).toEqual({ type: 'turn_finished', status: 'completed' });
      expect(model.requests[0]?.body.model).toBe('scripted-9');
      expect(model.requests[0]?.headers.authorization).toBe('Bearer sk-start-key');
      const detail = (await http(server.url, `/api/conversations/${id}`)).json<{
        messages: { text?: string }[];
      }>();
      expect(detail.messages.map((m) => m.text)).toEqual(['hi', 'Hello from the model']);
    } finally {
      await server.close();
      await model.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
