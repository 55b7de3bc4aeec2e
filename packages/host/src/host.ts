// The host, assembled: server registry + connection pool + workspaces + the tool-call pipeline,
// over a FileStore. This is what the HTTP API and the CLI hold; every part stays replaceable (the
// sandbox issue passes its own launcher).
import { resolve } from 'node:path';
import type { FileStore } from '@ferry/storage';
import type { Tool } from '@modelcontextprotocol/client';
import type { ConnectionPool } from './connections/connection.js';
import { type ConnectionPoolOptions, createConnectionPool } from './connections/connection-pool.js';
import { type ServerLauncher, unsandboxedLauncher } from './connections/launcher.js';
import type { CallEvent } from './events/call-events.js';
import { callTool, type ToolCallRequest, type ToolCallResponse } from './pipeline/call-tool.js';
import type { Clock } from './pipeline/clock.js';
import { loadServerRegistry, type ServerRegistry } from './servers/server-registry.js';
import { createWorkspaces, type Workspaces } from './workspace/workspaces.js';

export interface HostOptions {
  /** The parsed `ferry.config` object (its `servers` section is validated here). */
  config: unknown;
  files: FileStore;
  /** Host directory of the per-user workspaces, e.g. `./.ferry/workspaces`. */
  workspacesRoot: string;
  /** The URL a tool fetches a file from (url file mode). */
  downloadUrl(fileId: string, token: string): string;
  /**
   * Builds local server commands. @default unsandboxed: the configured command with
   * FERRY_WORKSPACE_ROOT pointing at `workspacesRoot`, so tools write where Ferry looks.
   */
  launcher?: ServerLauncher;
  /** Where the tool sees the workspaces (the sandbox sets '/tmp'). @default the host path */
  toolRoot?: string;
  /** Every event of every call. */
  emit?(event: CallEvent): void;
  clock?: Clock;
  pool?: Omit<ConnectionPoolOptions, 'registry' | 'launcher'>;
}

export interface Host {
  readonly registry: ServerRegistry;
  readonly pool: ConnectionPool;
  readonly workspaces: Workspaces;
  listTools(server: string, username: string): Promise<Tool[]>;
  callTool(request: ToolCallRequest, emit?: (event: CallEvent) => void): Promise<ToolCallResponse>;
  close(): Promise<void>;
}

export function createHost(options: HostOptions): Host {
  const registry = loadServerRegistry(options.config);
  const workspacesRoot = resolve(options.workspacesRoot);
  const launcher: ServerLauncher =
    options.launcher ??
    ((server, user) => {
      const spec = unsandboxedLauncher(server, user);
      return { ...spec, env: { ...spec.env, FERRY_WORKSPACE_ROOT: workspacesRoot } };
    });
  const pool = createConnectionPool({ ...options.pool, registry, launcher });
  const workspaces = createWorkspaces({
    root: workspacesRoot,
    ...(options.toolRoot === undefined ? {} : { toolRoot: options.toolRoot }),
  });

  return {
    registry,
    pool,
    workspaces,
    listTools: async (server, username) => (await pool.get(server, username)).listTools(),
    callTool: (request, emit) =>
      callTool(request, {
        pool,
        files: options.files,
        workspaces,
        serverSettings: (server) => {
          const config = registry.get(server);
          const { timeouts } = config;
          return {
            fileMode: config.fileMode,
            timeouts: { ...timeouts, noticeSeconds: [...timeouts.noticeSeconds] },
          };
        },
        downloadUrl: options.downloadUrl,
        ...(options.clock ? { clock: options.clock } : {}),
        emit: (event) => {
          options.emit?.(event);
          emit?.(event);
        },
      }),
    close: () => pool.close(),
  };
}
