// The v2 iframe canvas end to end through the API (docs/canvas.md): a real remote MCP server on
// loopback (Streamable HTTP) whose tool returns a canvas envelope. Its own origin is framed, another
// is refused with the reason; the token reaches the UI answer of an allowed canvas only, never the
// model (the answer or what the agent sends it) nor the logs; POST /api/canvas-opens checks the
// origin again and logs the open with the user.
import { createAgent, ModelError } from '@ferry/agent';
import type { AgentEvent, AgentMessage, CallDetail, ToolCallResponse } from '@ferry/contract';
import { createScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CanvasServer, startCanvasServer } from '../support/canvas-server.js';
import { asUser, http, PROXY_AUTH, settledCall, startTestApp, type TestApp } from '../support/start-app.js';

const TOKEN = 'cap-5d1e0c9b7a3f6e2d';
const alice = asUser('alice');

let canvas: CanvasServer;
let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  canvas = await startCanvasServer(TOKEN);
  t = await startTestApp({
    app: { auth: PROXY_AUTH },
    servers: {
      dash: { transport: 'http', url: canvas.url },
      // The explicit list replaces the default (the server's own origin).
      wide: { transport: 'http', url: canvas.url, canvasOrigins: [canvas.otherOrigin] },
      off: { transport: 'http', url: canvas.url, enabled: false },
    },
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
  });
});
afterAll(async () => {
  await t?.close();
  await canvas?.close();
});

async function openCanvas(server: string, args: Record<string, unknown>): Promise<ToolCallResponse> {
  const started = await http(t.url, '/api/calls', {
    method: 'POST',
    headers: { ...alice, 'content-type': 'application/json' },
    body: JSON.stringify({ server, tool: 'open_canvas', arguments: args }),
  });
  expect(started.status, started.text).toBe(202);
  const detail = await settledCall<CallDetail>(t.url, started.json<{ callId: string }>().callId, alice);
  if (!detail.response) throw new Error(`call ${detail.callId} has no response`);
  expect(detail.response.status).toBe('finished');
  return detail.response;
}

function reportOpen(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return http(t.url, '/api/canvas-opens', {
    method: 'POST',
    headers: { ...alice, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the canvas envelope of a remote server', () => {
  it("frames the server's own origin: the token goes to the UI answer, never to the model", async () => {
    const response = await openCanvas('dash', { echo: true });
    expect(response.forUi.canvas).toEqual({
      id: 'dash',
      url: `${canvas.origin}/dash?view=dash`,
      type: 'iframe',
      open: true,
      persistence: 'session',
      title: 'Test dashboard',
      token: TOKEN,
      server: 'dash',
      origin: canvas.origin,
      allowed: true,
    });
    expect(JSON.stringify(response.forModel)).not.toContain(TOKEN);
    expect(response.forModel.results).toEqual({ status: 'opened', note: 'token [canvas token]' });
  });

  it('refuses another origin with the reason, and hands no token out', async () => {
    const url = `${canvas.otherOrigin}/dash`;
    const response = await openCanvas('dash', { url });
    const reason = `origin ${canvas.otherOrigin} is not allowed for server dash`;
    expect(response.forUi.canvas).toMatchObject({
      url,
      allowed: false,
      origin: canvas.otherOrigin,
      refusal: reason,
    });
    expect(response.forUi.warnings).toContain(`canvas dash not opened: ${reason}`);
    expect(JSON.stringify(response)).not.toContain(TOKEN);
  });

  it("follows the server's canvasOrigins instead of its own origin when they are set", async () => {
    const other = await openCanvas('wide', { url: `${canvas.otherOrigin}/dash` });
    expect(other.forUi.canvas).toMatchObject({ allowed: true, token: TOKEN, origin: canvas.otherOrigin });
    const own = await openCanvas('wide', {});
    expect(own.forUi.canvas).toMatchObject({
      allowed: false,
      refusal: `origin ${canvas.origin} is not allowed for server wide`,
    });
    expect(own.forUi.canvas).not.toHaveProperty('token');
  });

  it("drops a token whose token_expires_at has passed, and passes a later one's on", async () => {
    const expired = await openCanvas('dash', { token_expires_at: '2001-01-01T00:00:00Z' });
    expect(expired.forUi.canvas).toMatchObject({ allowed: true });
    expect(expired.forUi.canvas).not.toHaveProperty('token');
    expect(expired.forUi.warnings).toContain(
      'canvas dash: its token expired at 2001-01-01T00:00:00.000Z; not passed on',
    );
    const valid = await openCanvas('dash', { token_expires_at: '2999-01-01T00:00:00Z' });
    expect(valid.forUi.canvas).toMatchObject({ token: TOKEN, tokenExpiresAt: '2999-01-01T00:00:00.000Z' });
  });
});

describe('POST /api/canvas-opens', () => {
  it('answers 204 for an allowed origin and logs the open with the user, server, call and origin', async () => {
    const response = await openCanvas('dash', {});
    const url = response.forUi.canvas?.url as string;
    const before = lines.length;
    const opened = await reportOpen({ server: 'dash', canvasId: 'dash', url, callId: response.callId });
    expect(opened.status, opened.text).toBe(204);
    const entries = logged()
      .slice(before)
      .filter((entry) => entry.msg === 'canvas frame opened');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 30,
      user: 'alice',
      server: 'dash',
      callId: response.callId,
      canvasId: 'dash',
      origin: canvas.origin,
    });
    // The origin only: a session id may ride in the URL's query.
    expect(lines.slice(before).join('')).not.toContain('view=dash');
  });

  it('answers 403 with the reason for an origin the server does not allow, and logs the refusal', async () => {
    const before = lines.length;
    const refused = await reportOpen({ server: 'dash', canvasId: 'x', url: `${canvas.otherOrigin}/dash` });
    expect(refused.status).toBe(403);
    expect(refused.json<{ results: { error: string } }>().results.error).toBe(
      `origin ${canvas.otherOrigin} is not allowed for server dash`,
    );
    const entries = logged()
      .slice(before)
      .filter((entry) => entry.msg === 'canvas frame refused');
    expect(entries).toEqual([
      expect.objectContaining({ level: 40, user: 'alice', origin: canvas.otherOrigin }),
    ]);
    expect(
      logged()
        .slice(before)
        .some((entry) => entry.msg === 'canvas frame opened'),
    ).toBe(false);
  });

  it("refuses Ferry's own origin, an unknown or disabled server, and a body that is not one", async () => {
    // A page served by Ferry at the canvas's own origin (Host and Origin say so).
    const own = await reportOpen(
      { server: 'wide', canvasId: 'x', url: `${canvas.otherOrigin}/dash` },
      { host: new URL(canvas.otherOrigin).host, origin: canvas.otherOrigin },
    );
    expect(own.status).toBe(403);
    expect(own.json<{ results: { error: string } }>().results.error).toBe(
      `origin ${canvas.otherOrigin} is Ferry's own and is never framed`,
    );
    expect((await reportOpen({ server: 'nope', canvasId: 'x', url: `${canvas.origin}/` })).status).toBe(404);
    expect((await reportOpen({ server: 'off', canvasId: 'x', url: `${canvas.origin}/` })).status).toBe(409);
    for (const body of [
      { server: 'dash', canvasId: 'x', url: 'javascript:alert(1)' },
      { server: 'dash', canvasId: 'x', url: `${canvas.origin}/`, token: TOKEN },
      { server: 'dash', url: `${canvas.origin}/` },
    ]) {
      const answer = await reportOpen(body);
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(400);
    }
  });

  it('needs a signed-in user', async () => {
    const anonymous = await http(t.url, '/api/canvas-opens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'dash', canvasId: 'x', url: `${canvas.origin}/` }),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('the agent', () => {
  it('never sends the model the token, nor keeps it in the conversation', async () => {
    const model = createScriptedModelClient({ ModelError });
    const agent = createAgent({ model, host: t.host, files: t.storage.files });
    model.play([
      { toolCalls: [{ id: 'c1', name: 'dash__open_canvas', arguments: { echo: true } }] },
      { text: ['The dashboard is open.'] },
    ]);
    const stored: AgentMessage[] = [];
    const events: AgentEvent[] = [];
    const result = await agent.runTurn({
      user: { owner: await t.storage.files.ensureUser('alice'), username: 'alice' },
      history: [],
      text: 'open the dashboard',
      emit: (event) => events.push(event),
      persist: async (messages) => {
        stored.push(...messages);
      },
    });
    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(2);
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('[canvas token]');
    for (const request of model.requests) expect(request.raw).not.toContain(TOKEN);
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    // The turn's events go to the user's page, which may see what the tool sent (its meta_data).
    expect(events.some((event) => event.type === 'tool_call_finished')).toBe(true);
  });
});

describe('the logs', () => {
  it('never hold a token', () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});
