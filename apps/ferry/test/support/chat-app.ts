// A Ferry with the chat over real HTTP for the chat tests: storage on disk + SQLite, the given
// example servers, the agent pointed at a scripted OpenAI-compatible model on loopback (or no
// model), and the helpers that post a message and read its server-sent events.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createAgent, createOpenAiCompatibleModelClient } from '@ferry/agent';
import type { ScriptedModelServer } from '@ferry/test-helpers/scripted-model-server';
import { expect } from 'vitest';
import { parseStream } from '../../src/cli/sse-reader.js';
import type { AppConfigInput } from '../../src/config/app-config.js';
import { ALICE, http, PROXY_AUTH, startTestApp, type TestApp } from './start-app.js';

export const JSON_TYPE = { 'content-type': 'application/json' };

export type ChatApp = TestApp;

export function startChatApp(options: {
  model: ScriptedModelServer | undefined;
  /** Server configs by name (e.g. from exampleServers()). */
  servers: Record<string, unknown>;
  /** Calls settings besides the defaults (proxy auth is always on). */
  calls?: AppConfigInput['calls'];
  /** The model's API key, so a test can look for it where it must not be. */
  apiKey?: string;
}): Promise<ChatApp> {
  const { model } = options;
  return startTestApp({
    app: { auth: PROXY_AUTH, ...(options.calls ? { calls: options.calls } : {}) },
    servers: options.servers,
    deps: ({ host, storage, dir }) => ({
      agent: createAgent({
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
      }),
      conversations: storage.conversations,
    }),
  });
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
