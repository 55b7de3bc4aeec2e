// The loop end to end: a scripted OpenAI-compatible server over real HTTP, the real host with
// the example report and slow servers, real storage. What reached the model is read from the
// requests the scripted server recorded, as bytes on the wire; what reached the tool from the
// host's own call events. The other loop tests (agent-scenarios.test.ts) use the in-process model.
import type { AgentEvent, AgentMessage, ToolMessage } from '@ferry/contract';
import type { RecordedRequest, ScriptedModelServer } from '@ferry/test-helpers/scripted-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILENAME_DESCRIPTION } from '../src/model-tools.js';
import { API_KEY, type Harness, startHttpHarness } from './support/harness.js';

const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\n';
const PNG_BASE64_MAGIC = 'iVBORw0KGgo';

let h: Harness<ScriptedModelServer>;
beforeAll(async () => {
  // Timeouts scaled down (v2.1 §11.3 schedule in proportion): 1 s without progress → E_TIMEOUT.
  h = await startHttpHarness({ report: {}, slow: { timeouts: { timeoutSeconds: 1 } } });
  await h.upload('alice', 'sales.csv', CSV);
}, 60_000);
afterAll(async () => h?.close());

function collect() {
  const events: AgentEvent[] = [];
  const stored: AgentMessage[] = [];
  return {
    events,
    stored,
    emit: (event: AgentEvent) => events.push(event),
    persist: async (messages: AgentMessage[]) => {
      stored.push(...messages);
    },
  };
}

const lastUser = (request: RecordedRequest) =>
  [...request.body.messages].reverse().find((m) => m.role === 'user')?.content as string;

/** Nothing the model must never see: file bytes, host paths, workspace paths, links, the key. */
function expectClean(request: RecordedRequest) {
  const raw = request.raw;
  expect(raw).not.toContain(PNG_BASE64_MAGIC);
  expect(raw).not.toMatch(/;base64,/);
  expect(raw).not.toContain(h.dir);
  expect(raw).not.toContain('/tmp/alice');
  expect(raw).not.toContain('input_files');
  expect(raw).not.toContain('token=');
  expect(raw).not.toContain('/api/files/');
  expect(raw).not.toContain(API_KEY);
}

describe('a turn that calls the CSV report tool by file name', () => {
  it('hides injected parameters, overrides the username, drops the fake path, and shows no bytes or paths', async () => {
    h.model.play([
      {
        text: ['Let me ', 'run the report.'],
        toolCalls: [
          {
            id: 'call_report',
            name: 'report__csv_report',
            arguments: { filename: 'sales.csv', username: 'admin', path: '/etc/passwd' },
          },
        ],
      },
      { text: ['The report is in ', 'report.html.'] },
    ]);
    const c = collect();
    const alice = await h.user('alice');
    const result = await h
      .agent()
      .runTurn({ user: alice, history: [], text: 'Make a report of my sales', ...c });
    expect(result.status).toBe('completed');

    const [first, second] = h.model.requests as [RecordedRequest, RecordedRequest];
    expect(h.model.requests).toHaveLength(2);
    expect(first.body.stream).toBe(true);
    expect(first.headers.authorization).toBe(`Bearer ${API_KEY}`);
    // The tool as the model sees it: namespaced, username hidden, filename described as a name.
    const tool = first.body.tools?.find((t) => t.function.name === 'report__csv_report');
    expect(tool).toBeDefined();
    const parameters = tool?.function.parameters as {
      properties: Record<string, { description?: string }>;
      required: string[];
    };
    expect(Object.keys(parameters.properties).sort()).toEqual(['filename', 'title']);
    expect(parameters.required).toEqual(['filename']);
    expect(parameters.properties.filename?.description).toBe(FILENAME_DESCRIPTION);
    for (const t of first.body.tools ?? []) expect(t.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    // The user's turn carries the file block after the text.
    const today = new Date().toISOString().slice(0, 10);
    expect(lastUser(first)).toBe(
      `Make a report of my sales\n\n[SYSTEM: Available files in current session:\n- sales.csv (uploaded ${today}, ${CSV.length} B, 3 rows, 2 columns)\nEnd available files]`,
    );
    expect(first.body.messages[0]?.role).toBe('system');

    // What reached the tool: the host's record of the prepared call.
    const prepared = c.events.find(
      (e) => e.type === 'tool_call_event' && e.event.type === 'arguments_prepared',
    ) as Extract<AgentEvent, { type: 'tool_call_event' }>;
    const event = prepared.event as Extract<typeof prepared.event, { type: 'arguments_prepared' }>;
    expect(event.transcript.username).toBe('alice');
    expect(event.transcript.filename).toBe('sales.csv');
    expect(event.transcript).not.toHaveProperty('path');
    expect(event.handedOver.map((x) => [x.argument, x.name, x.mode])).toEqual([
      ['filename', 'sales.csv', 'path'],
    ]);
    const started = c.events.find((e) => e.type === 'tool_call_started') as Extract<
      AgentEvent,
      { type: 'tool_call_started' }
    >;
    expect(started.arguments).toEqual({ filename: 'sales.csv', path: '/etc/passwd' });
    // The outputs went to alice's files; "admin" got nothing.
    const names = (await h.storage.files.list(alice.owner)).items.map((f) => f.name).sort();
    expect(names).toEqual(['chart.png', 'notes.md', 'report.html', 'sales.csv']);
    const admin = await h.user('admin');
    expect((await h.storage.files.list(admin.owner)).total).toBe(0);

    // The next request: the tool result (results + stored names + descriptions) and the history.
    const toolMessage = second.body.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_report');
    const content = JSON.parse(toolMessage?.content as string);
    expect(content.status).toBe('finished');
    expect(content.results.rows).toBe(3);
    expect(content.files.map((f: { name: string }) => f.name).sort()).toEqual([
      'chart.png',
      'notes.md',
      'report.html',
    ]);
    expect(content.files.find((f: { name: string }) => f.name === 'report.html').description).toMatch(
      /3 rows, 2 columns/,
    );
    expect(lastUser(second)).toContain('[SYSTEM: Available files in current session:\n- sales.csv (uploaded');
    const assistant = second.body.messages.find((m) => m.role === 'assistant') as {
      tool_calls: { function: { name: string; arguments: string } }[];
    };
    expect(assistant.tool_calls[0]?.function.name).toBe('report__csv_report');
    expectClean(first);
    expectClean(second);

    // Stored: the user's text as typed, the calls, the results, the answer.
    expect(c.stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(c.stored[0]).toEqual({ role: 'user', text: 'Make a report of my sales' });
    expect((c.stored[3] as { text: string }).text).toBe('The report is in report.html.');
    const stored = c.stored[2] as ToolMessage;
    expect(stored.files.map((f) => f.name).sort()).toEqual(['chart.png', 'notes.md', 'report.html']);
    expect(
      c.events
        .filter((e) => e.type === 'token')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Let me run the report.The report is in report.html.');
    expect(c.events.at(-1)).toEqual({ type: 'turn_finished', status: 'completed' });

    // A later turn lists the generated and deferred files too.
    h.model.play([{ text: ['ok'] }]);
    await h.agent().runTurn({ user: alice, history: c.stored, text: 'thanks', ...collect() });
    const block = lastUser(h.model.requests[0] as RecordedRequest);
    expect(block).toMatch(/- report\.html \(generated \d{4}-\d\d-\d\d, [\d.]+ KB\)/);
    expect(block).toMatch(/- chart\.png \(generated \d{4}-\d\d-\d\d, [\d.]+ KB, 640×360 px\)/);
    // The tool's own reason (needs_editing), kept with the file.
    expect(block).toContain('- notes.md (deferred, needs editing)');
    expect(h.model.requests[0]?.body.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    // Earlier user turns go back as typed; only the newest carries the block.
    expect(h.model.requests[0]?.body.messages[1]?.content).toBe('Make a report of my sales');
  });
});
