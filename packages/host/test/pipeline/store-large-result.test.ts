// A result too large for the model becomes a file in My Files, through the whole host with a real
// server over stdio (the flood example's big_json and big_text), a real FileStore on disk: the
// file holds the exact JSON the tool sent, the model's text stays within the limit and names the
// file, a small result stays inline, and a result that cannot be stored is cut with a note saying why.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallEvent,
  DEFAULT_MODEL_RESULT_CHARS,
  normalizeToolResult,
  type ToolCallResponse,
  type ToolOutcome,
} from '@ferry/contract';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { scriptServer } from '@ferry/test-helpers/example-servers';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host.js';
import { NO_REDACTION } from '../../src/pipeline/redact-for-model.js';
import { storeLargeResult } from '../../src/pipeline/store-large-result.js';
import { openTestStorage, type TestStorage } from './support/test-storage.js';

const MIB = 1024 * 1024;
const FLOOD = {
  ...scriptServer('flood'),
  timeouts: { timeoutSeconds: 30, hardCapSeconds: 120 },
};
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The model's text as the agent builds it from the host's answer (packages/agent/src/tool-result.ts). */
function modelText(response: ToolCallResponse): string {
  const model = response.forModel;
  return JSON.stringify({
    status: response.status,
    results: model.results,
    ...(model.files.length > 0 ? { files: model.files } : {}),
    ...(model.isError ? { is_error: true } : {}),
  });
}

interface Env {
  host: Host;
  storage: OpenedStorage;
  owner: string;
  call(
    tool: string,
    args: Record<string, unknown>,
  ): Promise<{ response: ToolCallResponse; events: CallEvent[] }>;
  read(id: string): Promise<Buffer>;
  close(): Promise<void>;
}

async function openEnv(options: { env?: Record<string, string>; maxModelResultChars?: number } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-large-result-'));
  const storage = await openStorage(
    loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data'), ...options.env } }),
  );
  const host = createHost({
    config: { servers: { flood: FLOOD } },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
    ...(options.maxModelResultChars ? { maxModelResultChars: options.maxModelResultChars } : {}),
  });
  const owner = await storage.files.ensureUser('alice');
  const env: Env = {
    host,
    storage,
    owner,
    async call(tool, args) {
      const events: CallEvent[] = [];
      const response = await host.callTool(
        { user: { owner, username: 'alice' }, server: 'flood', tool, arguments: args },
        (event) => events.push(event),
      );
      return { response, events };
    },
    async read(id) {
      const { stream } = await storage.files.get(owner, { id });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    async close() {
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return env;
}

/** The JSON text block the tool itself sends, read with a plain SDK client. */
async function toolJson(args: Record<string, unknown>): Promise<string> {
  const client = new Client({ name: 'test-large-result', version: '0.0.0' });
  // The SDK's own line reader stops at 10 MiB by default; the answer carries the rows twice.
  await client.connect(new StdioClientTransport({ ...FLOOD, stderr: 'ignore', maxBufferSize: 64 * MIB }));
  try {
    const result = await client.callTool({ name: 'big_json', arguments: args }, { timeout: 60_000 });
    const [first] = result.content as { type: string; text: string }[];
    return first?.text ?? '';
  } finally {
    await client.close();
  }
}

describe('with the default limit (16,000 characters)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await openEnv();
  });
  afterAll(() => env?.close());

  it('a 5 MB JSON result is stored whole as a file; the model gets a preview within the limit and the name', async () => {
    const [{ response, events }, expected] = await Promise.all([
      env.call('big_json', { bytes: 5_000_000 }),
      toolJson({ bytes: 5_000_000 }),
    ]);
    expect(response.status).toBe('finished');
    expect(Buffer.byteLength(expected)).toBeGreaterThanOrEqual(5_000_000);

    // One file, the whole result, byte for byte the JSON the tool sent.
    expect(response.forUi.files).toHaveLength(1);
    const [file] = response.forUi.files;
    if (!file) throw new Error('no file');
    expect(file.name).toMatch(/^big_json-result-[0-9a-z]{8}\.json$/);
    expect(file).toMatchObject({ mime: 'application/json', fullResult: true, category: 'data' });
    expect(file.size).toBe(Buffer.byteLength(expected));
    const stored = await env.read(file.id);
    expect(stored.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(events.filter((e) => e.type === 'file_stored').map((e) => e.file.id)).toEqual([file.id]);
    expect(events.at(-1)).toMatchObject({ type: 'finished', files: 1 });

    // The model: within the limit, the file named in the note and in the file list, the beginning.
    const text = modelText(response);
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MODEL_RESULT_CHARS);
    expect(text.length).toBeGreaterThan(DEFAULT_MODEL_RESULT_CHARS * 0.8);
    const results = response.forModel.results as {
      note: string;
      file: string;
      bytes: number;
      preview: string;
    };
    expect(results.file).toBe(file.name);
    expect(results.bytes).toBe(file.size);
    expect(results.note).toContain(
      `is in My Files as ${file.name}; pass that name to a tool that reads files`,
    );
    expect(expected.startsWith(results.preview)).toBe(true);
    expect(results.preview.length).toBeGreaterThan(5000);
    // Cut cleanly: before the comma between two values.
    expect(expected[results.preview.length]).toBe(',');
    expect(response.forModel.files).toEqual([{ name: file.name, description: file.description }]);
  }, 60_000);

  it('a small JSON result stays inline: no file', async () => {
    const [{ response }, expected] = await Promise.all([
      env.call('big_json', { bytes: 2000 }),
      toolJson({ bytes: 2000 }),
    ]);
    expect(response.status).toBe('finished');
    expect(response.forUi.files).toEqual([]);
    expect(response.forModel.results).toEqual(JSON.parse(expected));
  });

  it('a 1 MiB text result is stored as a .txt file, the text itself', async () => {
    const { response } = await env.call('big_text', { mib: 1, fill: 'x' });
    expect(response.status, JSON.stringify(response.forUi.error)).toBe('finished');
    const [file] = response.forUi.files;
    if (!file) throw new Error('no file');
    expect(file.name).toMatch(/^big_text-result-[0-9a-z]{8}\.txt$/);
    expect(file).toMatchObject({ mime: 'text/plain', size: MIB, fullResult: true });
    expect(sha256(await env.read(file.id))).toBe(sha256('x'.repeat(MIB)));
    const results = response.forModel.results as { file: string; preview: string };
    expect(results.file).toBe(file.name);
    expect(results.preview).toMatch(/^x{5000,}$/);
    expect(modelText(response).length).toBeLessThanOrEqual(DEFAULT_MODEL_RESULT_CHARS);
  }, 60_000);
});

describe('when the result cannot be stored (a 1 MB quota)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await openEnv({ env: { FERRY_USER_QUOTA_MB: '1' } });
  });
  afterAll(() => env?.close());

  it('the model gets the beginning and a note saying why; the UI a warning; nothing is stored', async () => {
    const { response } = await env.call('big_json', { bytes: 3_000_000 });
    expect(response.status).toBe('finished');
    expect(response.forUi.files).toEqual([]);
    expect((await env.storage.files.list(env.owner)).items).toEqual([]);
    const results = response.forModel.results as { note: string; bytes: number; preview: string };
    expect(results.note).toMatch(/could not be stored in My Files \(storage quota exceeded\)/);
    expect(results.bytes).toBeGreaterThanOrEqual(3_000_000);
    expect(results.preview.startsWith('{"rows":[{"id":0,')).toBe(true);
    expect(modelText(response).length).toBeLessThanOrEqual(DEFAULT_MODEL_RESULT_CHARS);
    expect(response.forUi.warnings).toEqual([
      expect.stringMatching(/too large for the model and could not be stored in My Files: .*quota/i),
    ]);
  }, 60_000);
});

describe('with a configured limit (2,000 characters)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await openEnv({ maxModelResultChars: 2000 });
  });
  afterAll(() => env?.close());

  it('a result over it becomes a file, and the model text stays within it', async () => {
    const { response } = await env.call('big_json', { bytes: 3000 });
    expect(response.forUi.files).toHaveLength(1);
    expect(modelText(response).length).toBeLessThanOrEqual(2000);
    expect((response.forModel.results as { file: string }).file).toBe(response.forUi.files[0]?.name);
  });

  it('refuses a limit too small for the note', () => {
    expect(() =>
      createHost({
        config: { servers: {} },
        files: env.storage.files,
        workspacesRoot: tmpdir(),
        downloadUrl: () => '',
        maxModelResultChars: 100,
      }),
    ).toThrow(/maxModelResultChars must be an integer of at least 500, got 100/);
  });
});

describe('storeLargeResult on its own', () => {
  let st: TestStorage;
  beforeAll(async () => {
    st = await openTestStorage();
  });
  afterAll(() => st?.close());

  const outcomeOf = (structuredContent: Record<string, unknown>): ToolOutcome => {
    const normalized = normalizeToolResult({ content: [], structuredContent });
    if (!normalized.ok) throw new Error(normalized.error);
    return normalized.outcome;
  };
  const run = (outcome: ToolOutcome, redaction = NO_REDACTION) =>
    storeLargeResult({
      outcome,
      redaction,
      tool: 'lookup',
      callId: '0f1e2d3c-aaaa-bbbb-cccc-000000000000',
      maxChars: 2000,
      stored: [],
      store: { files: st.files, owner: st.owner, display: outcome.display },
    });

  it('stores the exact result and redacts only the preview the model reads', async () => {
    const link = 'https://files.example/api/files/1/content?token=SECRET-123';
    const handed = '/srv/ferry/workspaces/alice/input_files/data.csv';
    const results = { link, source: handed, rows: Array.from({ length: 300 }, (_, id) => ({ id })) };
    const out = await run(outcomeOf({ results }), {
      references: new Map([[handed, 'data.csv']]),
      workspaceDirs: [],
    });
    expect(out.stored?.record.name).toBe('lookup-result-0f1e2d3c.json');
    const stored = (await st.read(out.stored?.record.id ?? '')).toString('utf8');
    expect(stored).toBe(JSON.stringify(results));
    const preview = (out.results as { preview: string }).preview;
    expect(preview).toContain('content?token=[redacted]');
    expect(preview).toContain('"source":"data.csv"');
    expect(preview).not.toContain('SECRET');
    expect(preview).not.toContain(handed);
  });

  it("follows the result's storage_action: temporary is session-only", async () => {
    const out = await run(
      outcomeOf({ results: { text: 'y'.repeat(5000) }, display: { storage_action: 'temporary' } }),
    );
    expect(out.stored?.record.persist).toBe(false);
    expect(out.stored?.record.category).toBe('data');
    expect(out.stored?.record.source).toBe('generated');
  });

  it('leaves a result that fits as the redacted value, storing nothing', async () => {
    const before = (await st.files.list(st.owner)).total;
    const out = await run(outcomeOf({ results: { link: 'https://x.example/a?token=abc', n: 1 } }));
    expect(out).toEqual({ results: { link: 'https://x.example/a?token=[redacted]', n: 1 }, warnings: [] });
    expect((await st.files.list(st.owner)).total).toBe(before);
  });
});
