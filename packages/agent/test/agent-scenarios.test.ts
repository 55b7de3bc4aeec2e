// Parallel calls, a tool timeout mid-conversation, cancel (while the model streams and while a
// tool runs), the round cap, bad calls from the model, vision, and model failures. The model is
// the in-process scripted client: these are tests of the loop; what the OpenAI-compatible client
// makes of them on the wire is in agent-loop.test.ts and openai-compatible.test.ts.
import type { AgentEvent, AgentMessage, ToolMessage } from '@ferry/contract';
import type { RecordedModelRequest, ScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentNotConfiguredError, createAgent } from '../src/agent.js';
import { type Harness, startHarness } from './support/harness.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\n';

let h: Harness<ScriptedModelClient>;
let alice: { owner: string; username: string };
beforeAll(async () => {
  h = await startHarness({ report: {}, slow: { timeouts: { timeoutSeconds: 1 } } });
  await h.upload('alice', 'sales.csv', CSV);
  alice = await h.user('alice');
}, 60_000);
afterAll(async () => h?.close());

function collect(onEvent: (event: AgentEvent) => void = () => {}) {
  const events: AgentEvent[] = [];
  const stored: AgentMessage[] = [];
  return {
    events,
    stored,
    emit: (event: AgentEvent) => {
      events.push(event);
      onEvent(event);
    },
    persist: async (messages: AgentMessage[]) => {
      stored.push(...messages);
    },
  };
}

const toolMessages = (request: RecordedModelRequest) =>
  request.messages.flatMap((m) => (m.role === 'tool' ? [m] : []));
const toolContents = (request: RecordedModelRequest) =>
  toolMessages(request).map((m) => JSON.parse(m.content));

describe('parallel tool calls', () => {
  it('runs the calls of one answer at the same time and returns both results in order', async () => {
    h.model.play([
      {
        toolCalls: [
          { id: 'a', name: 'slow__slow_task', arguments: { seconds: 0.6, steps: 3 } },
          { id: 'b', name: 'slow__slow_task', arguments: { seconds: 0.6, steps: 3 } },
        ],
      },
      { text: ['both done'] },
    ]);
    const c = collect();
    const result = await h.agent().runTurn({ user: alice, history: [], text: 'two tasks', ...c });
    expect(result.status).toBe('completed');
    // Host events: both calls had started, and both made progress, before either finished.
    const host = c.events.flatMap((e) =>
      e.type === 'tool_call_event' ? [`${e.toolCallId}:${e.event.type}`] : [],
    );
    const firstFinish = host.findIndex((e) => e.endsWith(':finished'));
    expect(firstFinish).toBeGreaterThan(0);
    const before = host.slice(0, firstFinish);
    expect(before).toContain('a:started');
    expect(before).toContain('b:started');
    expect(before).toContain('a:progress');
    expect(before).toContain('b:progress');
    const second = h.model.requests[1] as RecordedModelRequest;
    expect(toolMessages(second).map((m) => m.toolCallId)).toEqual(['a', 'b']);
    expect(toolContents(second).map((t) => t.results.status)).toEqual(['completed', 'completed']);
  });
});

describe('a tool timeout mid-conversation', () => {
  it('gives the model the E_TIMEOUT envelope and the conversation goes on', async () => {
    h.model.play([
      { toolCalls: [{ id: 'h1', name: 'slow__hang', arguments: {} }] },
      { text: ['The tool timed out.'] },
      { text: ['Still here.'] },
    ]);
    const c = collect();
    const first = await h.agent().runTurn({ user: alice, history: [], text: 'hang please', ...c });
    expect(first.status).toBe('completed');
    const [timeout] = toolContents(h.model.requests[1] as RecordedModelRequest);
    expect(timeout.status).toBe('failed');
    expect(timeout.is_error).toBe(true);
    expect(timeout.error.code).toBe('E_TIMEOUT');
    expect(timeout.error.message).toBe('Tool execution timed out after 1 seconds');
    const notices = c.events.flatMap((e) =>
      e.type === 'tool_call_event' && e.event.type === 'notice' ? [e.event.kind] : [],
    );
    expect(notices).toEqual(['slow', 'slow', 'slow', 'timeout']);

    const next = await h.agent().runTurn({ user: alice, history: c.stored, text: 'and now?', ...collect() });
    expect(next.status).toBe('completed');
    const third = h.model.requests[2] as RecordedModelRequest;
    expect(third.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(JSON.parse(toolMessages(third)[0]?.content as string).error.code).toBe('E_TIMEOUT');
  });
});

describe('cancel', () => {
  it('while the model streams: stops the stream, keeps the partial text as cancelled', async () => {
    h.model.play([{ text: ['Hel', 'lo'], hold: true }]);
    const controller = new AbortController();
    const c = collect((event) => {
      if (event.type === 'token' && event.delta === 'lo') controller.abort();
    });
    const result = await h
      .agent()
      .runTurn({ user: alice, history: [], text: 'talk', signal: controller.signal, ...c });
    expect(result.status).toBe('cancelled');
    const request = h.model.requests[0] as RecordedModelRequest;
    await request.closed;
    expect(request.aborted).toBe(true);
    expect(c.stored).toEqual([
      { role: 'user', text: 'talk' },
      { role: 'assistant', text: 'Hello', status: 'cancelled', model: 'scripted-1' },
    ]);
    expect(h.model.requests).toHaveLength(1);
    expect(c.events.at(-1)).toEqual({ type: 'turn_finished', status: 'cancelled' });
  });

  it('while a tool runs: cancels the call and asks the model nothing more', async () => {
    h.model.play([
      { toolCalls: [{ id: 's1', name: 'slow__slow_task', arguments: { seconds: 30, steps: 60 } }] },
    ]);
    const controller = new AbortController();
    const c = collect((event) => {
      if (event.type === 'tool_call_event' && event.event.type === 'progress') controller.abort();
    });
    const result = await h
      .agent()
      .runTurn({ user: alice, history: [], text: 'slow', signal: controller.signal, ...c });
    expect(result.status).toBe('cancelled');
    const tool = c.stored.find((m) => m.role === 'tool') as ToolMessage;
    expect(tool.status).toBe('cancelled');
    expect(JSON.parse(tool.content).error.code).toBe('E_CANCELLED');
    expect(h.model.requests).toHaveLength(1);
  });
});

describe('limits and bad calls', () => {
  it('stops offering tools after maxToolRounds and ends the turn', async () => {
    const call = { toolCalls: [{ id: 'x', name: 'slow__slow_task', arguments: { seconds: 0, steps: 1 } }] };
    h.model.play([call, call]);
    const c = collect();
    const result = await h
      .agent({ config: { maxToolRounds: 1 } })
      .runTurn({ user: alice, history: [], text: 'loop', ...c });
    expect(result.status).toBe('max_rounds');
    const [first, second] = h.model.requests as [RecordedModelRequest, RecordedModelRequest];
    expect(first.tools.length).toBeGreaterThan(0);
    expect(second.tools).toEqual([]);
    expect(second.messages.at(-1)).toEqual({
      role: 'system',
      content: 'Tool round limit (1) reached: answer now with what you have, without tools.',
    });
    expect(c.stored.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('answers unknown tools, broken JSON and wrong types to the model without calling anything', async () => {
    h.model.play([
      {
        toolCalls: [
          { id: 'u', name: 'nope__tool', arguments: {} },
          { id: 'j', name: 'report__csv_report', arguments: '{"filename": ' },
          { id: 't', name: 'slow__slow_task', arguments: { seconds: 'soon', steps: 1 } },
          { id: 'm', name: 'report__csv_report', arguments: { title: 'x' } },
        ],
      },
      { text: ['sorry'] },
    ]);
    const c = collect();
    await h.agent().runTurn({ user: alice, history: [], text: 'bad', ...c });
    const errors = toolContents(h.model.requests[1] as RecordedModelRequest).map(
      (t) => t.error.message as string,
    );
    expect(errors[0]).toMatch(/^Unknown tool "nope__tool"\. Available tools: .*report__csv_report/);
    expect(errors[1]).toMatch(/^Arguments are not valid JSON/);
    expect(errors[2]).toBe('Invalid arguments: "seconds" must be number');
    expect(errors[3]).toBe('Invalid arguments: "filename" is required');
    expect(c.events.some((e) => e.type === 'tool_call_event')).toBe(false);
  });
});

describe('vision', () => {
  it('sends a generated image once as an image part, then only a note', async () => {
    h.model.play([
      { toolCalls: [{ id: 'r', name: 'report__csv_report', arguments: { filename: 'sales.csv' } }] },
      { toolCalls: [{ id: 's', name: 'slow__slow_task', arguments: { seconds: 0, steps: 1 } }] },
      { text: ['I see a bar chart.'] },
    ]);
    const c = collect();
    await h.agent({ vision: true }).runTurn({ user: alice, history: [], text: 'look', ...c });
    const [, second, third] = h.model.requests as RecordedModelRequest[];
    const images = (r: RecordedModelRequest) =>
      (r.raw.match(/data:image\/png;base64,iVBORw0KGgo/g) ?? []).length;
    expect(images(second as RecordedModelRequest)).toBe(1);
    expect(images(third as RecordedModelRequest)).toBe(0);
    expect(third?.raw).toContain('images returned by the tools were shown once: chart.png');
    expect((c.stored.find((m) => m.role === 'tool') as ToolMessage).imagesShown).toEqual(['chart.png']);
    expect(JSON.stringify(c.stored)).not.toContain('iVBORw0KGgo');
  });
});

describe('model failures', () => {
  it('reports an HTTP error from the endpoint as E_MODEL_ERROR', async () => {
    h.model.play([{ status: 500 }]);
    const c = collect();
    const result = await h.agent().runTurn({ user: alice, history: [], text: 'hi', ...c });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('E_MODEL_ERROR');
    expect(result.error?.message).toMatch(/answered 500/);
    expect(c.stored).toEqual([{ role: 'user', text: 'hi' }]);
  });

  it('fails the turn, naming the request, when the model is asked more than the script holds', async () => {
    h.model.play([
      { toolCalls: [{ id: 'x', name: 'slow__slow_task', arguments: { seconds: 0, steps: 1 } }] },
    ]);
    const result = await h.agent().runTurn({ user: alice, history: [], text: 'once', ...collect() });
    expect(result.status).toBe('failed');
    expect(result.error).toEqual({
      code: 'E_MODEL_ERROR',
      message: 'Scripted model: no scripted reply for request 2 (the script is played out)',
    });
    expect(h.model.requests).toHaveLength(2);
  });

  it('refuses a turn when no model is configured', async () => {
    const agent = createAgent({ model: undefined, host: h.host, files: h.storage.files });
    expect(agent.configured).toBe(false);
    await expect(agent.runTurn({ user: alice, history: [], text: 'hi' })).rejects.toBeInstanceOf(
      AgentNotConfiguredError,
    );
  });
});
