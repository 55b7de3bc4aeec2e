// x-mcp-file inputs in the loop itself (no API): the real host with the xfile example server and
// the in-process scripted model. The request's own check refuses what does not fit; a turn that
// cannot ask the user refuses the call to the model; a multi-name answer for a single input is
// refused before anything is asked.
import { createHash } from 'node:crypto';
import type { AgentEvent } from '@ferry/contract';
import type { ScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRequest } from '../src/fill-file-inputs.js';
import { type Harness, startHarness } from './support/harness.js';

const TOOL = 'xfile__fingerprint_document';
const CSV = 'a,b\n1,2\n';

let h: Harness<ScriptedModelClient>;
let alice: { owner: string; username: string };
beforeAll(async () => {
  h = await startHarness({ xfile: {} });
  await h.upload('alice', 'table.csv', CSV);
  await h.upload('bob', 'other.csv', 'x\n');
  alice = await h.user('alice');
}, 60_000);
afterAll(async () => h?.close());

const toolContents = (n: number) =>
  (h.model.requests[n - 1]?.messages ?? []).flatMap((m) =>
    m.role === 'tool' ? [JSON.parse(m.content)] : [],
  );

describe('x-mcp-file inputs in the loop', () => {
  it('approves through requestFiles: the check refuses what does not fit, the tool gets the bytes', async () => {
    const bob = await h.user('bob');
    const bobsFile = await h.storage.files.resolve(bob.owner, 'other.csv');
    const mine = await h.storage.files.resolve(alice.owner, 'table.csv');
    h.model.play([
      { toolCalls: [{ id: 'c1', name: TOOL, arguments: { document: 'table.csv' } }] },
      { text: ['ok'] },
    ]);
    const checks: unknown[] = [];
    const events: AgentEvent[] = [];
    const result = await h.agent().runTurn({
      user: alice,
      history: [],
      text: 'fingerprint table.csv',
      emit: (event) => events.push(event),
      requestFiles: async (request: FileRequest) => {
        const refused = await request.check({ document: bobsFile?.id as string });
        checks.push(refused?.meta_data.error_code);
        checks.push((await request.check({}))?.meta_data.error_code);
        const proposed = request.inputs[0]?.proposed.map((file) => file.id) ?? [];
        checks.push(await request.check({ document: proposed }));
        return { action: 'accept', files: { document: proposed[0] as string } };
      },
    });
    expect(result.status).toBe('completed');
    // Bob's file is not Alice's; nothing picked for a required input; the model's proposal fits.
    expect(checks.slice(0, 2)).toEqual(['E_FILE_NOT_FOUND', 'E_INVALID_INPUT']);
    expect(checks[2]).toBeUndefined();
    expect(events.find((e) => e.type === 'file_request')).toMatchObject({
      inputs: [{ name: 'document', proposed: [{ id: mine?.id, name: 'table.csv' }] }],
    });
    const [read] = toolContents(2);
    expect(read.results.sha256).toBe(createHash('sha256').update(CSV).digest('hex'));
    expect(h.model.requests.map((r) => r.raw).join('')).not.toContain('data:');
  });

  it('refuses a call that needs a file when the user cannot be asked, sending nothing', async () => {
    h.model.play([
      { toolCalls: [{ id: 'c2', name: TOOL, arguments: { document: 'table.csv' } }] },
      { text: ['ok'] },
    ]);
    const events: AgentEvent[] = [];
    await h.agent().runTurn({ user: alice, history: [], text: 'go', emit: (event) => events.push(event) });
    const [read] = toolContents(2);
    expect(read.error).toEqual({
      code: 'E_INVALID_INPUT',
      message:
        'xfile › fingerprint_document takes a file the user must pick or approve, and the user cannot be asked here. Nothing was sent.',
    });
    expect(events.some((e) => e.type === 'tool_call_event')).toBe(false);
  });

  it('refuses a list of names for a single file input before asking anyone', async () => {
    h.model.play([
      { toolCalls: [{ id: 'c3', name: TOOL, arguments: { document: ['table.csv', 'table.csv'] } }] },
      { text: ['ok'] },
    ]);
    let asked = false;
    await h.agent().runTurn({
      user: alice,
      history: [],
      text: 'go',
      requestFiles: async () => {
        asked = true;
        return { action: 'decline' };
      },
    });
    expect(asked).toBe(false);
    expect(toolContents(2)[0].error).toEqual({
      code: 'E_INVALID_INPUT',
      message: 'Invalid arguments: "document" must be string',
    });
  });
});
