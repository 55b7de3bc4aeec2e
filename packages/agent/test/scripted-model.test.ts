// The scripted model both ways one script is played: the in-process client, and the scripted
// HTTP server behind the real OpenAI-compatible client. Each case runs against both players
// with the same expectations, so the two stay interchangeable for the loop's tests.
import type { ScriptedReply } from '@ferry/test-helpers/model-script';
import { createScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelClient, ModelError, type ModelRequest } from '../src/model-client.js';
import { createOpenAiCompatibleModelClient } from '../src/openai-compatible.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => server?.close());

interface Player {
  client: ModelClient;
  play(steps: ScriptedReply[]): void;
  request(n: number): Promise<{ aborted: boolean; closed: Promise<void> }>;
  count(): number;
  /** How a request beyond the script fails: the server answers 500, the client cannot be reached. */
  extra: { code: string; status: number | undefined };
}

const inProcess = createScriptedModelClient({ ModelError });
const PLAYERS: Record<string, () => Player> = {
  'in process': () => ({
    client: inProcess,
    play: (steps) => inProcess.play(steps),
    request: (n) => inProcess.request(n),
    count: () => inProcess.requests.length,
    extra: { code: 'protocol', status: undefined },
  }),
  'over HTTP': () => ({
    client: createOpenAiCompatibleModelClient({
      baseURL: server.baseURL,
      model: 'scripted-1',
      maxRetries: 0,
    }),
    play: (steps) => server.play(steps),
    request: (n) => server.request(n),
    count: () => server.requests.length,
    extra: { code: 'http', status: 500 },
  }),
};

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

for (const [name, make] of Object.entries(PLAYERS)) {
  describe(`the scripted model ${name}`, () => {
    it('streams the text pieces in order and returns the tool calls, broken JSON as written', async () => {
      const p = make();
      p.play([
        {
          text: ['Hel', 'lo'],
          toolCalls: [
            { id: 'a', name: 'report__csv_report', arguments: { filename: 'sales.csv' } },
            { id: 'b', name: 'slow__hang', arguments: '{"seconds": ' },
          ],
        },
        { text: ['done'] },
      ]);
      const deltas: string[] = [];
      const first = await p.client.generate(ask({ onText: (delta) => deltas.push(delta) }));
      expect(deltas).toEqual(['Hel', 'lo']);
      expect(first).toEqual({
        text: 'Hello',
        toolCalls: [
          { id: 'a', name: 'report__csv_report', arguments: '{"filename":"sales.csv"}' },
          { id: 'b', name: 'slow__hang', arguments: '{"seconds": ' },
        ],
        stopReason: 'tool_calls',
      });
      expect(await p.client.generate(ask())).toEqual({ text: 'done', toolCalls: [], stopReason: 'stop' });
      expect(p.count()).toBe(2);
    });

    it('fails a status step as the endpoint answering that status', async () => {
      const p = make();
      p.play([{ status: 503 }]);
      const error = await failure(p.client.generate(ask()));
      expect(error.code).toBe('http');
      expect(error.status).toBe(503);
      expect(error.message).toMatch(/^The model endpoint answered 503: .*scripted failure 503$/);
    });

    it('fails loudly, naming the request, when asked more than the script holds', async () => {
      const p = make();
      p.play([{ text: ['only one'] }]);
      await p.client.generate(ask());
      const error = await failure(p.client.generate(ask()));
      expect(error.message).toContain('no scripted reply for request 2');
      expect({ code: error.code, status: error.status }).toEqual(p.extra);
      expect(p.count()).toBe(2);
    });

    it('holds the stream open until cancelled, then rejects as cancelled and records the abort', async () => {
      const p = make();
      p.play([{ text: ['Hel', 'lo'], hold: true }]);
      const controller = new AbortController();
      const deltas: string[] = [];
      const onText = (delta: string) => {
        deltas.push(delta);
        if (delta === 'lo') controller.abort();
      };
      const error = await failure(p.client.generate(ask({ signal: controller.signal, onText })));
      expect(error.code).toBe('cancelled');
      expect(deltas).toEqual(['Hel', 'lo']);
      const request = await p.request(1);
      await request.closed;
      expect(request.aborted).toBe(true);
    });
  });
}

describe('the in-process scripted model', () => {
  it('records each request as the loop sent it, unchanged by what the loop does next', async () => {
    const client = createScriptedModelClient({ ModelError, model: 'm-1', vision: true });
    expect([client.model, client.vision]).toEqual(['m-1', true]);
    client.play([{ text: ['a'] }, { text: ['b'] }]);
    const second = client.request(2);
    const messages: ModelRequest['messages'][number][] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'image', dataUrl: 'data:image/png;base64,AAAA' }] },
    ];
    const tools = [{ name: 'report__csv_report', description: 'CSV report', parameters: { type: 'object' } }];
    await client.generate({ messages, tools });
    messages.push({ role: 'assistant', content: 'a' });
    messages[0] = { role: 'system', content: 'changed' };
    await client.generate({ messages, tools: [] });

    const [first] = client.requests;
    expect(first?.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'image', dataUrl: 'data:image/png;base64,AAAA' }] },
    ]);
    expect(first?.tools).toEqual(tools);
    expect(JSON.parse(first?.raw ?? '')).toEqual({ messages: first?.messages, tools });
    expect(first?.aborted).toBe(false);
    expect((await second).messages.map((m) => m.content)).toEqual([
      'changed',
      [{ type: 'image', dataUrl: 'data:image/png;base64,AAAA' }],
      'a',
    ]);

    client.play([]);
    expect(client.requests).toEqual([]);
  });
});
