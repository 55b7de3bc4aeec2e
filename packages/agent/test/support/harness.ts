// Real parts for agent tests: storage (local disk + SQLite) in a fresh directory, the host with
// example servers of the repository's ferry.config.json and test/ferry.test-config.json (the
// slow server with its hang tool), and a scripted model: in process (startHarness), or over HTTP
// with the OpenAI-compatible client pointed at the scripted server (startHttpHarness), for the
// tests of what crosses the wire.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createHost, type Host } from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { configuredServers } from '@ferry/test-helpers/example-servers';
import {
  createScriptedModelClient,
  type ScriptedModelClient,
} from '@ferry/test-helpers/scripted-model-client';
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { type Agent, type AgentOptions, createAgent } from '../../src/agent.js';
import { type ModelClient, ModelError } from '../../src/model-client.js';
import { createOpenAiCompatibleModelClient } from '../../src/openai-compatible.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
export const API_KEY = 'sk-test-0123456789abcdef';

export interface Harness<Model> {
  dir: string;
  storage: OpenedStorage;
  host: Host;
  model: Model;
  agent(options?: Partial<AgentOptions> & { vision?: boolean }): Agent;
  user(username: string): Promise<{ owner: string; username: string }>;
  upload(username: string, name: string, content: string | Buffer): Promise<void>;
  close(): Promise<void>;
}

/** `servers`: names from the two configs, each with optional overrides (e.g. timeouts). */
export async function startHarness(
  servers: Record<string, Record<string, unknown>>,
): Promise<Harness<ScriptedModelClient>> {
  const model = createScriptedModelClient({ ModelError });
  return withModel(
    servers,
    model,
    async () => {},
    (vision) => ({
      model: model.model,
      vision,
      generate: (request) => model.generate(request),
    }),
  );
}

/** As {@link startHarness}, the model behind real HTTP and the OpenAI-compatible client. */
export async function startHttpHarness(
  servers: Record<string, Record<string, unknown>>,
): Promise<Harness<ScriptedModelServer>> {
  const model = await startScriptedModelServer();
  return withModel(servers, model, model.close, (vision) =>
    createOpenAiCompatibleModelClient({
      baseURL: model.baseURL,
      apiKey: API_KEY,
      model: 'scripted-1',
      maxRetries: 0,
      vision,
    }),
  );
}

async function withModel<Model>(
  servers: Record<string, Record<string, unknown>>,
  model: Model,
  closeModel: () => Promise<void>,
  client: (vision: boolean) => ModelClient,
): Promise<Harness<Model>> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-agent-'));
  const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'data') }, env: {} }));
  const known = await configuredServers();
  const chosen: Record<string, unknown> = {};
  for (const [name, overrides] of Object.entries(servers)) {
    chosen[name] = { ...known[name], command: process.execPath, cwd: REPO_ROOT, ...overrides };
  }
  const host = createHost({
    config: { servers: chosen },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:9/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  return {
    dir,
    storage,
    host,
    model,
    agent: (options = {}) =>
      createAgent({
        model: client(options.vision ?? false),
        host,
        files: storage.files,
        hostPaths: [dir],
        secrets: [API_KEY],
        ...options,
      }),
    user: async (username) => ({ owner: await storage.files.ensureUser(username), username }),
    upload: async (username, name, content) => {
      const owner = await storage.files.ensureUser(username);
      await storage.files.put(owner, name, Readable.from([Buffer.from(content)]), { mime: 'text/csv' });
    },
    close: async () => {
      await host.close();
      await closeModel();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
