// A real host (real FileStore: SQLite + local disk in a temp dir) in front of one example server,
// configured over stdio and over Streamable HTTP (a second process started with `--http 0`) under
// the names a test gives; and the two moves of an elicitation test: start a call that asks, answer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallEvent } from '@ferry/contract';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import {
  type HttpServerProcess,
  type ServerName,
  scriptServer,
  startHttp,
} from '@ferry/test-helpers/example-servers';
import { createHost, type Host, type HostOptions } from '../../src/host.js';
import type { ToolCallRequest } from '../../src/pipeline/call-tool.js';
import type { ServerConfigInput } from '../../src/servers/server-config.js';

type StdioInput = Extract<ServerConfigInput, { transport: 'stdio' }>;
type HttpInput = Extract<ServerConfigInput, { transport: 'http' }>;

export interface ExampleHost {
  dir: string;
  http: HttpServerProcess;
  storage: OpenedStorage;
  host: Host;
  /** Closes the host, stops the HTTP server, closes the storage and removes the temp dir. */
  close(): Promise<void>;
}

export async function startExampleHost(options: {
  server: ServerName;
  /** Prefix of the temp dir's name. */
  prefix: string;
  /** The config's servers, built from the example over stdio and over Streamable HTTP. */
  servers(stdio: StdioInput, remote: HttpInput): Record<string, ServerConfigInput>;
  /** More host options (e.g. elicitationTimeoutSeconds). */
  host?: Partial<HostOptions>;
}): Promise<ExampleHost> {
  const dir = await mkdtemp(join(tmpdir(), options.prefix));
  let http: HttpServerProcess | undefined;
  let storage: OpenedStorage | undefined;
  let host: Host | undefined;
  const close = async () => {
    await host?.close();
    await http?.stop();
    await storage?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    http = await startHttp(options.server, join(dir, 'http-workspaces'));
    storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
    host = createHost({
      config: {
        servers: options.servers(scriptServer(options.server), { transport: 'http', url: http.url.href }),
      },
      files: storage.files,
      workspacesRoot: join(dir, 'workspaces'),
      downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
      pool: { onStderr: () => {} },
      ...options.host,
    });
    return { dir, http, storage, host, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export type Question = Extract<CallEvent, { type: 'elicitation' }>;

/** Starts a call and resolves `question` with its first elicitation, once it is asked. */
export function startAskingCall(host: Host, request: ToolCallRequest) {
  const events: CallEvent[] = [];
  let asked!: (event: Question) => void;
  const question = new Promise<Question>((resolve) => {
    asked = resolve;
  });
  const response = host.callTool(request, (event) => {
    events.push(event);
    if (event.type === 'elicitation') asked(event);
  });
  return { events, question, response };
}

/** Answers `asked` as `owner`; `extra` adds to or overrides that (wrong answers included). */
export function answerQuestion(
  host: Host,
  owner: string,
  asked: Question,
  action: 'accept' | 'decline' | 'cancel',
  extra: Record<string, unknown> = {},
): Promise<boolean> {
  return host.answerElicitation({
    callId: asked.callId,
    elicitationId: asked.elicitationId,
    owner,
    action,
    ...extra,
  });
}

/**
 * The ways an elicitation test reaches example `name`: stdio on 2026-07-28, stdio pinned to
 * 2025-11-25 (`-2025`) and Streamable HTTP (`-http`), each also as `-quick`: one second without
 * progress would time the call out there, so only a stopped clock survives a user who takes
 * longer than that to answer.
 */
export function elicitationServers(
  name: string,
  stdio: StdioInput,
  remote: HttpInput,
): Record<string, ServerConfigInput> {
  const quick = { timeouts: { noticeSeconds: [], timeoutSeconds: 1, hardCapSeconds: 30 } };
  return {
    [name]: stdio,
    [`${name}-quick`]: { ...stdio, ...quick },
    [`${name}-2025`]: { ...stdio, protocol: '2025-11-25' },
    [`${name}-2025-quick`]: { ...stdio, protocol: '2025-11-25', ...quick },
    [`${name}-http`]: remote,
    [`${name}-http-quick`]: { ...remote, ...quick },
  };
}
