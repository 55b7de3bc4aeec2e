// MCP Apps visibility (SEP-1865): a tool whose `_meta.ui.visibility` leaves out "model" is not in
// the model's tool list, and a model that names it anyway is refused without reaching the server.
// Real parts: the csv-chart example (show_csv_chart for model and app, save_chart_png for the
// app only) and the report example, the in-process scripted model.
import type { AgentEvent, AgentMessage } from '@ferry/contract';
import type { RecordedModelRequest, ScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.js';

let h: Harness<ScriptedModelClient>;
let alice: { owner: string; username: string };
beforeAll(async () => {
  h = await startHarness({ 'csv-chart': {}, report: {} });
  await h.upload('alice', 'sales.csv', 'month,sales\nJan,120\nFeb,80\n');
  alice = await h.user('alice');
}, 60_000);
afterAll(async () => h?.close());

function collect() {
  const events: AgentEvent[] = [];
  const stored: AgentMessage[] = [];
  return {
    events,
    stored,
    emit: (event: AgentEvent) => void events.push(event),
    persist: async (messages: AgentMessage[]) => void stored.push(...messages),
  };
}

const toolContents = (request: RecordedModelRequest) =>
  request.messages.flatMap((m) => (m.role === 'tool' ? [JSON.parse(m.content)] : []));

describe('app-only tools', () => {
  it('are not offered to the model; tools for model and app are', async () => {
    h.model.play([{ text: ['ok'] }]);
    const result = await h.agent().runTurn({ user: alice, history: [], text: 'hi', ...collect() });
    expect(result.status).toBe('completed');
    const offered = (h.model.requests[0] as RecordedModelRequest).tools.map((tool) => tool.name);
    expect(offered).toEqual(['csv-chart__show_csv_chart', 'report__csv_report']);
    expect((h.model.requests[0] as RecordedModelRequest).raw).not.toContain('save_chart_png');
  });

  it('are refused when the model calls one anyway; the server is never called', async () => {
    h.model.play([
      {
        toolCalls: [
          {
            id: 's1',
            name: 'csv-chart__save_chart_png',
            arguments: { png_base64: 'iVBORw0KGgo=', name: 'x' },
          },
          { id: 's2', name: 'csv-chart__show_csv_chart', arguments: { filename: 'sales.csv' } },
        ],
      },
      { text: ['done'] },
    ]);
    const c = collect();
    const result = await h.agent().runTurn({ user: alice, history: [], text: 'save it', ...c });
    expect(result.status).toBe('completed');
    const [refused, shown] = toolContents(h.model.requests[1] as RecordedModelRequest);
    expect(refused).toEqual({
      status: 'failed',
      is_error: true,
      error: {
        code: 'E_FORBIDDEN',
        message:
          'Tool "csv-chart__save_chart_png" is for its app\'s view only (MCP Apps visibility ["app"]): the model cannot call it.',
      },
    });
    const finished = c.events.find((e) => e.type === 'tool_call_finished' && e.toolCallId === 's1');
    expect(finished).toMatchObject({ status: 'rejected', isError: true, error: { code: 'E_FORBIDDEN' } });
    // The model-visible tool of the same server ran, and the model read its summary, not the rows.
    expect(shown.status).toBe('finished');
    expect(shown.results).toEqual({
      summary: 'sales.csv: 2 rows, 2 columns; numeric: sales',
      rows: 2,
      columns: 2,
      numeric_columns: ['sales'],
    });
    // The chat's view of the call gets the server's result, rows included.
    const shownFinished = c.events.find((e) => e.type === 'tool_call_finished' && e.toolCallId === 's2');
    expect(shownFinished).toMatchObject({
      status: 'finished',
      mcpResult: {
        structuredContent: {
          rows: [
            ['Jan', 120],
            ['Feb', 80],
          ],
        },
      },
    });
    expect(finished).not.toHaveProperty('mcpResult');
    // No host event for the refused call: it never reached the pipeline.
    const hostCalls = c.events.flatMap((e) =>
      e.type === 'tool_call_event' && e.event.type === 'started' ? [e.toolCallId] : [],
    );
    expect(hostCalls).toEqual(['s2']);
    expect(c.events).toContainEqual(
      expect.objectContaining({
        type: 'tool_call_started',
        toolCallId: 's1',
        server: 'csv-chart',
        tool: 'save_chart_png',
      }),
    );
  });
});
