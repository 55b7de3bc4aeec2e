// A failed call the model asks for again (retry-rule.ts), and what the model reads of meta_data and
// retryable. The tool is the slow example's `flaky` (test tools): it fails the first `failures`
// calls per key with a v2.1 §12 envelope whose `retryable` is as asked, then succeeds and reports
// the attempt, so the server's own count says how often Ferry really ran it. The model is the
// in-process scripted client.
import type { AgentEvent, AgentMessage } from '@ferry/contract';
import type { RecordedModelRequest, ScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.js';

let h: Harness<ScriptedModelClient>;
let alice: { owner: string; username: string };
beforeAll(async () => {
  h = await startHarness({ slow: {} });
  alice = await h.user('alice');
}, 60_000);
afterAll(async () => h?.close());

let keys = 0;
const uniqueKey = () => `retry-${Date.now()}-${++keys}`;

interface ToolContent {
  status: string;
  results: unknown;
  is_error?: boolean;
  meta_data?: unknown;
  error?: { code: string; message: string; retryable?: boolean; suggestion?: string };
}

/** The tool results the model read in its n-th request (1-based), in order. */
const toolContents = (n: number): ToolContent[] =>
  (h.model.requests[n - 1] as RecordedModelRequest).messages.flatMap((m) =>
    m.role === 'tool' ? [JSON.parse(m.content) as ToolContent] : [],
  );

async function turn(text: string, history: AgentMessage[] = []) {
  const events: AgentEvent[] = [];
  const stored: AgentMessage[] = [];
  const result = await h.agent().runTurn({
    user: alice,
    history,
    text,
    emit: (event) => events.push(event),
    persist: async (messages) => {
      stored.push(...messages);
    },
  });
  /** Tool calls that reached the host: its `started` events, by tool call id. */
  const ran = events.flatMap((e) =>
    e.type === 'tool_call_event' && e.event.type === 'started' ? [e.toolCallId] : [],
  );
  return { result, events, stored, ran };
}

const flaky = (id: string, args: Record<string, unknown>) => ({ id, name: 'slow__flaky', arguments: args });

describe('what the model reads', () => {
  it('meta_data of a success; the error with retryable: true of a retryable failure', async () => {
    const key = uniqueKey();
    h.model.play([
      { toolCalls: [flaky('a', { key, failures: 1 })] },
      { toolCalls: [flaky('b', { key, failures: 1 })] },
      { text: ['done'] },
    ]);
    const { result } = await turn('try the flaky tool');
    expect(result.status).toBe('completed');
    const [failed] = toolContents(2);
    expect(failed).toMatchObject({
      status: 'finished',
      is_error: true,
      error: { code: 'E_UPSTREAM_BUSY', retryable: true, suggestion: 'Try again' },
      meta_data: { is_error: true, error_code: 'E_UPSTREAM_BUSY', retryable: true },
    });
    const retried = toolContents(3).at(-1);
    expect(retried).toEqual({
      status: 'finished',
      results: { status: 'ok', attempt: 2 },
      meta_data: { key, attempt: 2, failed_before: 1 },
    });
  });
});

describe('the model loop retries a failed call at most once', () => {
  it('a retryable failure runs once more; the third identical call is refused without a tool call', async () => {
    const key = uniqueKey();
    const args = { key, failures: 5 };
    h.model.play([
      { toolCalls: [flaky('t1', args)] },
      // The same call, its keys in another order: still the same call.
      { toolCalls: [flaky('t2', { failures: 5, key })] },
      { toolCalls: [flaky('t3', args)] },
      { text: ['It keeps failing.'] },
    ]);
    const { result, events, stored, ran } = await turn('flaky please');
    expect(result.status).toBe('completed');
    expect(ran).toEqual(['t1', 't2']);
    expect(toolContents(2)[0]?.error).toMatchObject({ code: 'E_UPSTREAM_BUSY', retryable: true });
    expect(toolContents(3)[1]?.error).toMatchObject({ code: 'E_UPSTREAM_BUSY', retryable: true });
    const refused = toolContents(4)[2];
    expect(refused?.status).toBe('failed');
    expect(refused?.error?.code).toBe('E_RETRY_LIMIT');
    expect(refused?.error?.message).toBe(
      'Not run: this exact call (same tool, same arguments) already failed 2 times in this turn (last: E_UPSTREAM_BUSY); a retryable failure is retried once. Tell the user what went wrong instead of calling it again.',
    );
    // The chat sees it as a call that was not run.
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_call_finished', toolCallId: 't3', status: 'rejected' }),
    );
    expect(stored.find((m) => m.role === 'tool' && m.toolCallId === 't3')).toMatchObject({
      status: 'rejected',
      error: { code: 'E_RETRY_LIMIT' },
    });

    // The server saw two attempts: the next call of this key (other arguments, so allowed) is its third.
    h.model.play([{ toolCalls: [flaky('t4', { key, failures: 2 })] }, { text: ['ok'] }]);
    await turn('once more, expecting success');
    expect(toolContents(2)[0]).toMatchObject({ results: { status: 'ok', attempt: 3 } });
  });

  it('a failure that is not retryable is not run again with the same arguments', async () => {
    const key = uniqueKey();
    const args = { key, failures: 3, retryable: false };
    h.model.play([{ toolCalls: [flaky('n1', args)] }, { toolCalls: [flaky('n2', args)] }, { text: ['no'] }]);
    const { ran } = await turn('flaky, not retryable');
    expect(ran).toEqual(['n1']);
    expect(toolContents(2)[0]?.error).toMatchObject({ code: 'E_UPSTREAM_BUSY', retryable: false });
    expect(toolContents(3)[1]?.error).toEqual({
      code: 'E_RETRY_LIMIT',
      message:
        'Not run: this exact call (same tool, same arguments) already failed in this turn with E_UPSTREAM_BUSY, which is not retryable, so it would fail the same way. Change the arguments or tell the user what went wrong.',
    });
  });

  it('a new user turn starts afresh: the user asking again runs the call', async () => {
    const key = uniqueKey();
    const args = { key, failures: 5 };
    h.model.play([
      { toolCalls: [flaky('f1', args)] },
      { toolCalls: [flaky('f2', args)] },
      { toolCalls: [flaky('f3', args)] },
      { text: ['failed twice'] },
    ]);
    const first = await turn('flaky');
    expect(first.ran).toEqual(['f1', 'f2']);

    h.model.play([{ toolCalls: [flaky('g1', args)] }, { text: ['failed again'] }]);
    const second = await turn('try again please', first.stored);
    expect(second.ran).toEqual(['g1']);
    expect(toolContents(2).at(-1)?.error).toMatchObject({ code: 'E_UPSTREAM_BUSY' });
  });
});
