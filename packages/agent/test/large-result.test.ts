// A tool result far larger than the model's limit, in a conversation: the host stores it as a file,
// the model reads a preview and the file's name, and hands that name to a second tool, which gets
// the whole result. Real servers (the flood example's big_json, the inject example's
// analyze_document, which hashes the file it is given), real storage, the in-process scripted model.
import { createHash } from 'node:crypto';
import { type AgentEvent, DEFAULT_MODEL_RESULT_CHARS, type ToolMessage } from '@ferry/contract';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import type { RecordedModelRequest, ScriptedModelClient } from '@ferry/test-helpers/scripted-model-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from './support/harness.js';

const FLOOD = {
  transport: 'stdio',
  args: [exampleScript('flood')],
  fileMode: 'path',
};

let h: Harness<ScriptedModelClient>;
beforeAll(async () => {
  h = await startHarness({ flood: FLOOD, inject: {} });
}, 60_000);
afterAll(async () => h?.close());

const toolMessages = (request: RecordedModelRequest) =>
  request.messages.flatMap((m) => (m.role === 'tool' ? [m] : []));

it('a 5 MB result becomes a file the model passes by name to a second tool, which gets all of it', async () => {
  let named = '';
  h.model.play([
    { toolCalls: [{ id: 'big', name: 'flood__big_json', arguments: { bytes: 5_000_000 } }] },
    // The model reads the file's name from the result it was given, and hands it on.
    (request) => {
      const [message] = toolMessages(request);
      named = (JSON.parse(message?.content ?? '{}') as { results?: { file?: string } }).results?.file ?? '';
      return {
        toolCalls: [
          {
            id: 'hash',
            name: 'inject__analyze_document',
            arguments: { instructions: 'Hash it', filename: named },
          },
        ],
      };
    },
    { text: ['Done.'] },
  ]);
  const user = await h.user('alice');
  const events: AgentEvent[] = [];
  const result = await h.agent().runTurn({
    user,
    history: [],
    text: 'Get the big data set, then analyze all of it.',
    emit: (event) => events.push(event),
    persist: async () => {},
  });
  expect(result.status).toBe('completed');

  // The stored file: the whole result, listed by the host for the UI as the full result.
  const bigCall = events.find(
    (e): e is Extract<AgentEvent, { type: 'tool_call_finished' }> =>
      e.type === 'tool_call_finished' && e.toolCallId === 'big',
  );
  const file = bigCall?.files[0];
  expect(file).toMatchObject({ fullResult: true, mime: 'application/json' });
  expect(file?.name).toMatch(/^big_json-result-[0-9a-z]{8}\.json$/);
  expect(file?.size).toBeGreaterThanOrEqual(5_000_000);
  const { stream } = await h.storage.files.get(user.owner, { id: file?.id ?? '' });
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  const storedSha = hash.digest('hex');

  // Request 2: the model read a text within its limit that names the file.
  const second = h.model.requests[1] as RecordedModelRequest;
  const [bigMessage] = toolMessages(second) as ToolMessage[];
  expect(bigMessage?.toolCallId).toBe('big');
  const content = bigMessage?.content ?? '';
  expect(content.length).toBeLessThanOrEqual(DEFAULT_MODEL_RESULT_CHARS);
  expect(named).toBe(file?.name);
  expect(content).toContain(`is in My Files as ${named}; pass that name to a tool that reads files`);
  expect(JSON.parse(content)).toMatchObject({
    status: 'finished',
    results: { file: named, bytes: file?.size, preview: expect.stringMatching(/^\{"rows":\[\{"id":0,/) },
    files: [{ name: named }],
  });

  // Request 3: the second tool hashed the bytes it was handed, and they are the whole stored result.
  const third = h.model.requests[2] as RecordedModelRequest;
  const hashMessage = toolMessages(third).find((m) => m.toolCallId === 'hash');
  const analysis = JSON.parse(hashMessage?.content ?? '{}') as {
    status: string;
    results: { metrics: { bytes: number; sha256: string } };
  };
  expect(analysis.status).toBe('finished');
  expect(analysis.results.metrics).toMatchObject({ bytes: file?.size, sha256: storedSha });
}, 120_000);
