// A Ferry with the chat over real HTTP for the chat tests: storage on disk + SQLite, the given
// example servers, the agent pointed at a scripted OpenAI-compatible model on loopback (or no
// model), and the helpers that post a message and read its server-sent events.
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, createOpenAiCompatibleModelClient } from '@ferry/agent';
import { createHost, type Host } from '@ferry/host';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import type { ScriptedModelServer } from '@ferry/test-helpers/scripted-model-server';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { parseStream } from '../../src/cli/sse-reader.js';
import { type AppConfigInput, defaultAppConfig } from '../../src/config/app-config.js';
import { asUser, http, PROXY_AUTH } from './start-app.js';

export const ALICE = asUser('alice');
export const BOB = asUser('bob');
export const JSON_TYPE = { 'content-type': 'application/json' };

export interface ChatApp {
  url: string;
  app: FastifyInstance;
  host: Host;
  storage: OpenedStorage;
  close(): Promise<void>;
}

export async function startChatApp(options: {
  model: ScriptedModelServer | undefined;
  /** Server configs by name (e.g. from exampleServers()). */
  servers: Record<string, unknown>;
  /** Calls settings besides the defaults (proxy auth is always on). */
  calls?: AppConfigInput['calls'];
  /** The model's API key, so a test can look for it where it must not be. */
  apiKey?: string;
}): Promise<ChatApp> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-chat-'));
  const storage = await openStorage(loadStorageConfig({ file: { dataDir: join(dir, 'data') }, env: {} }));
  const host = createHost({
    config: { servers: options.servers },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:9/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  const { model } = options;
  const agent = createAgent({
    model: model
      ? createOpenAiCompatibleModelClient({
          baseURL: model.baseURL,
          apiKey: options.apiKey ?? 'sk-chat-test-key',
          model: 'scripted-1',
          maxRetries: 0,
        })
      : undefined,
    host,
    files: storage.files,
    hostPaths: [dir],
  });
  const app = buildApp({
    files: storage.files,
    host,
    config: defaultAppConfig({ auth: PROXY_AUTH, ...(options.calls ? { calls: options.calls } : {}) }),
    hostPaths: { data: join(dir, 'data'), workspace: join(dir, 'workspaces') },
    agent,
    conversations: storage.conversations,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    app,
    host,
    storage,
    close: async () => {
      await app.close();
      await host.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface ChatEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/** POSTs a message and reads the SSE reply; `onEvent` sees each event as it arrives. */
export function sendChatMessage(
  base: string,
  conversationId: string,
  body: unknown,
  onEvent: (event: ChatEvent) => void = () => {},
  headers: Record<string, string> = ALICE,
): Promise<{ status: number; response: IncomingMessage; events: ChatEvent[]; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(
      new URL(`/api/conversations/${conversationId}/messages`, base),
      { method: 'POST', headers: { ...headers, ...JSON_TYPE, 'content-length': Buffer.byteLength(payload) } },
      (response) => {
        const events: ChatEvent[] = [];
        if (!response.headers['content-type']?.startsWith('text/event-stream')) {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, response, events, text }));
          return;
        }
        parseStream(response, (event) => {
          const parsed = {
            ...(event.id ? { id: event.id } : {}),
            event: event.event,
            data: JSON.parse(event.data) as Record<string, unknown>,
          };
          events.push(parsed);
          onEvent(parsed);
        })
          .then(() => resolve({ status: response.statusCode ?? 0, response, events, text: '' }))
          .catch(reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export async function createConversation(
  base: string,
  headers: Record<string, string> = ALICE,
  body: unknown = {},
): Promise<string> {
  const created = await http(base, '/api/conversations', {
    method: 'POST',
    headers: { ...headers, ...JSON_TYPE },
    body: JSON.stringify(body),
  });
  expect(created.status, created.text).toBe(201);
  return created.json<{ id: string }>().id;
}
