// The host, assembled: server registry + connection pool + workspaces + the tool-call pipeline,
// over a FileStore. This is what the HTTP API and the CLI hold; every part stays replaceable (the
// sandbox passes its own launcher, and the tool root that goes with it). A launcher that throws a
// FerryError (E_SANDBOX_UNAVAILABLE, E_QUOTA_EXCEEDED) fails the call with that envelope: the pool
// and the pipeline pass it on unchanged.
import { resolve } from 'node:path';
import { type CallEvent, type ToolCallResponse, type UiResource, WORKSPACE_ROOT_ENV } from '@ferry/contract';
import type { FileStore } from '@ferry/storage';
import type { Tool } from '@modelcontextprotocol/client';
import type { ConnectionPool } from './connections/connection.js';
import type { ConnectionExtrasSource } from './connections/connection-extras.js';
import { type ConnectionPoolOptions, createConnectionPool } from './connections/connection-pool.js';
import { type ServerLauncher, unsandboxedLauncher } from './connections/launcher.js';
import { createCallbackAttribution } from './file-provider/callback-attribution.js';
import type { FileProvider } from './file-provider/create-file-provider.js';
import { providerExtras } from './file-provider/provider-extras.js';
import { callTool, type ToolCallRequest } from './pipeline/call-tool.js';
import type { Clock } from './pipeline/clock.js';
import { createElicitationBroker, type ElicitationAnswer } from './pipeline/elicitation-bridge.js';
import { canvasOriginsOf } from './servers/canvas-origins.js';
import type { StdioServerConfig } from './servers/server-config.js';
import { loadServerRegistry, type ServerRegistry } from './servers/server-registry.js';
import { createUiResourceReader } from './servers/ui-resources.js';
import { createWorkspaces, type WorkspaceOwner, type Workspaces } from './workspace/workspaces.js';

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
  /**
   * Where tools see the workspaces, so paths they return map to the right host directory: one
   * root for every local server ('/tmp' when all run sandboxed), or a function of the server, for
   * a host whose servers differ (a sandbox launcher's `toolRootFor`: '/tmp' for the servers it
   * sandboxes, undefined for those it runs unsandboxed). @default the host path
   */
  toolRoot?: string | ToolRootResolver;
  /**
   * Who owns the users' workspace directories when tools run as an unprivileged host user.
   * @default the launcher's own `workspaceOwner` (the sandbox launcher has one), else Ferry itself
   */
  workspaceOwner?: () => Promise<WorkspaceOwner | undefined>;
  /**
   * How the files a tool wrote during a call are found: 'watch' (a change tracker per workspace,
   * walking when it cannot be trusted) or 'walk' (the workspace walked before and after). @default 'watch'
   */
  workspaceDetection?: 'watch' | 'walk';
  /** Every event of every call. */
  emit?(event: CallEvent): void;
  clock?: Clock;
  pool?: Omit<ConnectionPoolOptions, 'registry' | 'launcher' | 'extras'>;
  /**
   * The users' file provider (createFileProvider). When given and its settings enable it, servers
   * with `fileProvider` get it. The host does not close it: its maker does, after the host.
   * @default none: `{{fileProviderUrl}}` and `{{fileProviderToken}}` are filled with ''
   */
  fileProvider?: FileProvider;
  /** How long a server's question waits for the user before it is answered `cancel`. @default 600 */
  elicitationTimeoutSeconds?: number;
  /**
   * Longest answer text the model is given. A result that would make it longer is stored in My
   * Files and the model gets its beginning and the file's name. Give the agent's `maxResultChars`
   * (FERRY_LLM_MAX_RESULT_CHARS), so the agent never cuts what the host sized.
   * @default DEFAULT_MODEL_RESULT_CHARS (16,000)
   */
  maxModelResultChars?: number;
}

export interface ElicitationAnswerRequest extends ElicitationAnswer {
  callId: string;
  elicitationId: string;
  /** FileStore owner id of the user answering: only the call's own user can. */
  owner: string;
}

/** A local server's tool root; undefined: the tools see the host path. */
export type ToolRootResolver = (
  server: StdioServerConfig,
) => string | undefined | Promise<string | undefined>;

export interface Host {
  readonly registry: ServerRegistry;
  readonly pool: ConnectionPool;
  readonly workspaces: Workspaces;
  listTools(server: string, username: string): Promise<Tool[]>;
  /**
   * An MCP Apps view (SEP-1865) one of the server's tools declares, read over the user's
   * connection and cached (servers/ui-resources.ts says when it is read again and what it refuses).
   */
  readUiResource(
    server: string,
    username: string,
    uri: string,
    options?: { signal?: AbortSignal },
  ): Promise<UiResource>;
  /**
   * A session of the user opened: starts, in the background, their connections to the enabled
   * servers configured with `start: "session"` (their tool lists fetched too), so the first call
   * finds them ready. Never rejects: each server's outcome is in the answer (a server that cannot
   * start is started again, and fails with its reason, on the call that needs it).
   */
  startSessionServers(username: string): Promise<SessionServerStart[]>;
  callTool(request: ToolCallRequest, emit?: (event: CallEvent) => void): Promise<ToolCallResponse>;
  /**
   * Answers an open elicitation. `false`: no such open question of this user (answered, timed out,
   * or not theirs). Throws a FerryError when the answer does not fit the form (the question stays
   * open), e.g. a picked file outside `accept`.
   */
  answerElicitation(answer: ElicitationAnswerRequest): Promise<boolean>;
  close(): Promise<void>;
}

/** What `startSessionServers` did for one server. */
export type SessionServerStart = { server: string; ok: true } | { server: string; ok: false; error: unknown };

export function createHost(options: HostOptions): Host {
  const { maxModelResultChars } = options;
  // The note and the file name alone take a few hundred characters.
  if (
    maxModelResultChars !== undefined &&
    !(Number.isSafeInteger(maxModelResultChars) && maxModelResultChars >= 500)
  ) {
    throw new Error(
      `[ferry/host] maxModelResultChars must be an integer of at least 500, got ${maxModelResultChars}`,
    );
  }
  const registry = loadServerRegistry(options.config);
  const workspacesRoot = resolve(options.workspacesRoot);
  const launcher: ServerLauncher =
    options.launcher ??
    ((server, user, extras) => {
      const spec = unsandboxedLauncher(server, user, extras);
      return { ...spec, env: { ...spec.env, [WORKSPACE_ROOT_ENV]: workspacesRoot } };
    });
  const { fileProvider } = options;
  const extras: ConnectionExtrasSource = providerExtras(
    fileProvider?.settings.enabled ? fileProvider : undefined,
  );
  // The views' cache hears every connection event (a list change makes it stale); it gets its
  // connections from the pool made just below.
  const uiResources = createUiResourceReader({ pool: { get: (server, user) => pool.get(server, user) } });
  const onPoolEvent = options.pool?.onEvent;
  const pool = createConnectionPool({
    ...options.pool,
    registry,
    launcher,
    extras,
    onEvent: (event) => {
      uiResources.onConnectionEvent(event);
      onPoolEvent?.(event);
    },
  });
  const attribution = createCallbackAttribution();
  const unsubscribe = fileProvider?.onCallback((event) => attribution.attribute(event));
  const elicitations = createElicitationBroker({
    files: options.files,
    timeoutMs: (options.elicitationTimeoutSeconds ?? 600) * 1000,
  });
  // A sandbox launcher knows who owns the workspaces; a caller need not repeat it.
  const workspaceOwner =
    options.workspaceOwner ??
    (options.launcher as { workspaceOwner?: () => Promise<WorkspaceOwner | undefined> } | undefined)
      ?.workspaceOwner;
  // One view of the same directories per tool root (the host path is `undefined`).
  const views = new Map<string | undefined, Workspaces>();
  const viewAt = (toolRoot: string | undefined): Workspaces => {
    let view = views.get(toolRoot);
    if (view === undefined) {
      view = createWorkspaces({
        root: workspacesRoot,
        ...(toolRoot === undefined ? {} : { toolRoot }),
        ...(workspaceOwner ? { owner: workspaceOwner } : {}),
        ...(options.workspaceDetection ? { detection: { method: options.workspaceDetection } } : {}),
      });
      views.set(toolRoot, view);
    }
    return view;
  };
  const { toolRoot } = options;
  const workspaces = viewAt(typeof toolRoot === 'string' ? toolRoot : undefined);
  const workspacesFor = (serverName: string): Workspaces => {
    if (typeof toolRoot !== 'function') return workspaces;
    return {
      ...workspaces,
      forUser: async (username) => {
        const server = registry.get(serverName);
        const root = server.transport === 'stdio' ? await toolRoot(server) : undefined;
        return viewAt(root).forUser(username);
      },
    };
  };

  return {
    registry,
    pool,
    workspaces,
    listTools: async (server, username) => (await pool.get(server, username)).listTools(),
    readUiResource: (server, username, uri, readOptions) =>
      uiResources.read(server, username, uri, readOptions),
    startSessionServers: (username) =>
      Promise.all(
        registry
          .list()
          .filter((server) => server.enabled && server.start === 'session')
          .map(async ({ name }): Promise<SessionServerStart> => {
            try {
              await (await pool.get(name, username)).listTools();
              return { server: name, ok: true };
            } catch (error) {
              return { server: name, ok: false, error };
            }
          }),
      ),
    callTool: (request, emit) =>
      callTool(request, {
        pool,
        files: options.files,
        workspaces: workspacesFor(request.server),
        serverSettings: (server) => {
          const config = registry.get(server);
          const { timeouts } = config;
          return {
            fileMode: config.fileMode,
            timeouts: { ...timeouts, noticeSeconds: [...timeouts.noticeSeconds] },
            canvasOrigins: canvasOriginsOf(config),
            xMcpFileNameParam: config.xMcpFileNameParam,
          };
        },
        downloadUrl: options.downloadUrl,
        elicitations,
        ...(maxModelResultChars === undefined ? {} : { maxModelResultChars }),
        ...(options.clock ? { clock: options.clock } : {}),
        emit: (event) => {
          options.emit?.(event);
          emit?.(event);
        },
        track: attribution.track,
      }),
    answerElicitation: async ({ callId, elicitationId, owner, ...answer }) => {
      const flags = await options.files.flags(owner);
      return elicitations.answer(callId, elicitationId, owner, answer, flags.base64_size_limit_bytes);
    },
    close: async () => {
      unsubscribe?.();
      // Closing each connection revokes its provider token.
      await pool.close();
      // After the pool: no call is left to finish a detection window.
      await Promise.all([...views.values()].map((view) => view.close()));
    },
  };
}
