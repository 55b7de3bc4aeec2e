// Starts Ferry: config (once, validated, frozen) → the data directory's lock → a port check →
// storage → host → app → listen. Everything the app needs is made here and closed here, in reverse
// order; the app itself never listens. A start that fails (bad config, data directory in use, port
// taken) fails before anything is opened or swept: maintenance only begins once Ferry listens.
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { agentConfigFromEnv, createAgentFromConfig, describeAgentConfig } from '@ferry/agent';
import { FerryError, fileProviderPath } from '@ferry/contract';
import {
  type ConnectionEventListener,
  createFileProvider,
  createHost,
  createRemoteAuth,
  type FileProvider,
  type Host,
  type ProviderCallbackEvent,
  type RemoteAuth,
} from '@ferry/host';
import { createBubblewrapLauncher, type SandboxProbe } from '@ferry/sandbox';
import { type DataDirLock, lockDataDir, type OpenedStorage, openStorage } from '@ferry/storage';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type AppsSandbox, startAppsSandbox } from './apps-sandbox/sandbox-server.js';
import { type FerryConfig, loadFerryConfig } from './config/load-config.js';
import { meteredHost } from './ops/metered-host.js';
import { createAppMetrics } from './ops/metrics.js';
import { storageChecks } from './ops/readiness.js';
import { CLIENT_METADATA_PATH } from './routes/oauth.js';
import { createSharedState } from './shared/shared-state.js';
import { FERRY_VERSION, type FerryStatus, sandboxStatus } from './status.js';
import { createWorkspaceJanitor, guardedHost } from './workspaces/workspace-janitor.js';

export interface StartServerOptions {
  /** @default FERRY_CONFIG, else ./ferry.config.json if present */
  configPath?: string;
  /** Override the config's server.host / server.port (the `ferry start` flags). */
  host?: string;
  port?: number;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default process.cwd() */
  cwd?: string;
  /** @default FERRY_LOG_LEVEL or 'warn' */
  logLevel?: string;
  /** Where the log's JSON lines go (an embedder's or a test's sink). @default stdout */
  logStream?: { write(line: string): void };
  /** stderr of local MCP servers. @default Ferry's stderr */
  onServerStderr?: (server: string, user: string, text: string) => void;
  /** The pool's connection lifecycle (connected, closed with why, tools changed). @default none */
  onConnectionEvent?: ConnectionEventListener;
  /** Each start of a local server without the sandbox (mode auto without bubblewrap, or off). @default stderr */
  onSandboxWarning?: (warning: { server: string; user: string; message: string }) => void;
}

export interface RunningServer {
  url: string;
  config: FerryConfig;
  app: FastifyInstance;
  host: Host;
  storage: OpenedStorage;
  /** The file provider tools call back to; undefined when `fileProvider.enabled` is off. */
  fileProvider: FileProvider | undefined;
  /** Effective modes (what GET /api/status returns), the sandbox probe's findings among them. */
  status: FerryStatus;
  /** The startup summary: URL and effective modes, one line each. */
  summary: string[];
  /**
   * Stops Ferry. With `graceMs`, it drains first (ops/drain.ts): /readyz answers 503, new calls,
   * uploads and chat turns are refused with E_SHUTTING_DOWN, and the running ones get up to
   * `graceMs` to finish; whatever is still running then is cancelled with a clear event.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = loadFerryConfig({ env, cwd, ...(options.configPath ? { path: options.configPath } : {}) });
  // FERRY_LLM_*: read (and rejected if malformed) before anything is opened.
  const llm = agentConfigFromEnv(env);
  const listenHost = options.host ?? config.app.server.host;
  const port = options.port ?? config.app.server.port;

  const dataDir = resolve(cwd, config.storage.dataDir);
  // Before anything touches the data directory: another Ferry using it keeps it.
  const lock = lockDataDir(dataDir);
  try {
    await checkPortFree(listenHost, port);
    return await startLocked({ options, env, cwd, config, llm, dataDir, lock, listenHost, port });
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(s: {
  options: StartServerOptions;
  env: NodeJS.ProcessEnv;
  cwd: string;
  config: FerryConfig;
  llm: ReturnType<typeof agentConfigFromEnv>;
  dataDir: string;
  lock: DataDirLock;
  listenHost: string;
  port: number;
}): Promise<RunningServer> {
  const { options, env, cwd, config, llm, dataDir, lock, listenHost, port } = s;
  const workspacesRoot = join(dataDir, 'workspaces');
  const sandbox = config.app.sandbox;
  const launcher = createBubblewrapLauncher({
    workspacesRoot,
    mode: sandbox.mode,
    network: sandbox.network,
    limits: sandbox.limits,
    serverLimits: sandbox.limitsByServer,
    ...(sandbox.bwrapPath ? { bwrapPath: sandbox.bwrapPath } : {}),
    // The FileStore (every user's files) and the config (header secrets) stay out of sight.
    hide: [dataDir, ...(config.path ? [config.path] : []), ...sandbox.hide],
    binds: sandbox.binds,
    bindsByServer: sandbox.bindsByServer,
    allowServerOff: sandbox.allowServerOff,
    ...(sandbox.runAs ? { runAs: sandbox.runAs } : {}),
    ...(options.onSandboxWarning ? { onWarning: options.onSandboxWarning } : {}),
  });
  // Once, before the first request: the API and the startup summary report what it found.
  const sandboxProbe = await launcher.probe();
  const storage = await openStorage(config.storage);
  // Scale mode (FERRY_REDIS_URL): what this instance shares with the others. An unreachable Redis
  // stops the start here, naming it.
  const shared = await createSharedState(config.app, {
    ...(config.app.server.publicUrl ? { publicUrl: config.app.server.publicUrl } : {}),
  }).catch(async (error: unknown) => {
    await storage.close().catch(() => undefined);
    throw error;
  });
  let baseUrl = config.app.server.publicUrl?.replace(/\/+$/, '') ?? '';
  let log: FastifyInstance['log'] | undefined;
  let auditLog: FastifyInstance['log'] | undefined;
  // Tools reach it where they reach downloads: server.publicUrl, else the address Ferry listens on.
  const fileProvider = config.fileProvider.enabled
    ? createFileProvider({
        settings: config.fileProvider,
        files: storage.files,
        workspacesRoot,
        baseUrl: () => baseUrl,
        audit: (event) => auditLog?.info(auditLine(event), 'file provider callback'),
      })
    : undefined;
  // Made once the host (and its registry) exists; its providers are asked for only on connect.
  let remoteAuth: RemoteAuth | undefined;
  const host = createHost({
    config: config.host,
    files: storage.files,
    workspacesRoot,
    downloadUrl: (fileId, token) =>
      `${baseUrl}/api/files/${fileId}/content?token=${encodeURIComponent(token)}`,
    launcher,
    // Sandboxed or not, a tool finds its workspace at /tmp/<user> (a link to it when unsandboxed).
    toolRoot: launcher.toolRootFor,
    workspaceOwner: launcher.workspaceOwner,
    workspaceDetection: config.app.calls.workspaceDetection,
    ...(fileProvider ? { fileProvider } : {}),
    // One limit for both: the host sizes results to what the agent gives the model.
    ...(llm.configured ? { maxModelResultChars: llm.config.maxResultChars } : {}),
    pool: {
      authProvider: (server, user) => remoteAuth?.providerFor(server, user),
      ...(options.onServerStderr ? { onStderr: options.onServerStderr } : {}),
      ...(options.onConnectionEvent ? { onEvent: options.onConnectionEvent } : {}),
      ...(config.app.calls.maxResultBytes ? { maxResultBytes: config.app.calls.maxResultBytes } : {}),
      ...(config.app.calls.maxConcurrentStarts
        ? { maxConcurrentStarts: config.app.calls.maxConcurrentStarts }
        : {}),
    },
  });
  remoteAuth = createRemoteAuth({
    registry: host.registry,
    store: storage.oauth,
    redirectUrl: () => `${baseUrl}/api/oauth/callback`,
    connectUrl: (server) => `/api/oauth/${encodeURIComponent(server)}/start`,
    // A client ID metadata document needs a URL the authorization server can fetch: https only.
    clientMetadataUrl: () =>
      baseUrl.startsWith('https://') ? `${baseUrl}/api${CLIENT_METADATA_PATH}` : undefined,
  });
  // Every local server that will not run sandboxed as configured, or cannot start at all, is named
  // at startup and in GET /api/status, not only when it is first called.
  const serverWarnings: string[] = [];
  for (const server of host.registry.list()) {
    if (server.transport !== 'stdio' || !server.enabled) continue;
    const report = await launcher.describe(server);
    serverWarnings.push(...report.warnings);
    if (report.problem) serverWarnings.push(`MCP server "${server.name}" cannot start: ${report.problem}`);
  }
  const status = {
    ...describeStatus(config, storage, sandboxProbe, cwd, serverWarnings),
    llm: describeAgentConfig(llm),
  };
  const workspaces = createWorkspaceJanitor({
    workspacesRoot,
    closeUser: (username) => host.pool.closeUser(username),
    idleMs: config.app.sessions.idleMinutes * 60_000,
    onCleared: (user, entries, why) => log?.info({ user, entries, why }, 'workspace emptied'),
  });
  // Calls from the API and from the model loop alike keep the user's workspace in use, and are
  // counted in the app's metrics (the app meters the host it is given only once).
  const metrics = createAppMetrics();
  const apiHost = meteredHost(guardedHost(host, workspaces), metrics);
  const agent = createAgentFromConfig(llm, {
    host: apiHost,
    files: storage.files,
    hostPaths: [dataDir, workspacesRoot],
  });
  const webRoot = resolve(cwd, 'apps/web/dist');
  const app = buildApp({
    files: storage.files,
    host: apiHost,
    workspaces,
    config: config.app,
    hostPaths: { data: dataDir, workspace: workspacesRoot },
    status,
    agent,
    conversations: storage.conversations,
    ...(fileProvider ? { fileProvider } : {}),
    remoteAuth,
    metrics,
    readiness: storageChecks(storage),
    ...(shared ? { shared } : {}),
    ...(existsSync(webRoot) ? { webRoot } : {}),
    logger: {
      level: options.logLevel ?? env.FERRY_LOG_LEVEL ?? 'warn',
      ...(options.logStream ? { stream: options.logStream } : {}),
      // Download tokens ride in query strings; they must not end up in logs.
      serializers: { req: (request) => ({ method: request.method, url: stripQuery(request.url) }) },
    },
  });

  log = app.log;
  // The audit trail is kept at `info` whatever FERRY_LOG_LEVEL says (only `silent` silences it):
  // with the default `warn` every callback would otherwise go unrecorded.
  const level = options.logLevel ?? env.FERRY_LOG_LEVEL ?? 'warn';
  auditLog = app.log.child({}, { level: level === 'silent' ? 'silent' : 'info' });
  let appsSandbox: AppsSandbox | undefined;
  const close = async (closing: { graceMs?: number } = {}) => {
    const { drain, calls } = app.ferry;
    drain.begin();
    if (closing.graceMs !== undefined && closing.graceMs > 0) {
      const deadline = Date.now() + closing.graceMs;
      const [uploadsDone, callsDone] = await Promise.all([drain.idle(deadline), calls.idle(deadline)]);
      if (!uploadsDone || !callsDone)
        log?.warn({ uploadsDone, callsDone }, 'grace period over: cancelling what still runs');
    }
    await app.close().catch(() => undefined);
    await appsSandbox?.close().catch(() => undefined);
    await host.close().catch(() => undefined);
    // After the host: no server connection is left to mint or use a token.
    await fileProvider?.close().catch(() => undefined);
    // After the app: its calls have settled into the shared store.
    await shared?.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    lock.release();
  };
  try {
    await app.listen({ host: listenHost, port });
  } catch (error) {
    await close();
    // Taken between the check and now.
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw portInUse(listenHost, port);
    throw error;
  }
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${actualPort}`;
  try {
    appsSandbox = await listenAppsSandbox(config, listenHost, url);
  } catch (error) {
    await close();
    throw error;
  }
  status.appsSandboxUrl = appsSandbox.proxyUrl;
  if (baseUrl === '') baseUrl = url;
  lock.setUrl(url);
  return {
    url,
    config,
    app,
    host,
    storage,
    fileProvider,
    status,
    summary: summarize(url, config, status, cwd, fileProvider ? baseUrl : undefined, shared),
    close,
  };
}

/**
 * MCP Apps' sandbox origin (apps-sandbox/): on a free port unless configured (no fixed neighbour of
 * Ferry's port: two instances often sit on neighbouring ports). It must not be Ferry's own origin,
 * or an app's proxy page would share Ferry's storage and DOM.
 */
async function listenAppsSandbox(config: FerryConfig, host: string, mainUrl: string): Promise<AppsSandbox> {
  const apps = config.app.apps;
  const port = apps.sandboxPort ?? 0;
  const mainOrigins = [mainUrl, config.app.server.publicUrl].flatMap((u) => (u ? [new URL(u).origin] : []));
  if (apps.sandboxPublicUrl && mainOrigins.includes(new URL(apps.sandboxPublicUrl).origin)) {
    throw new FerryError('E_INVALID_INPUT', "apps.sandboxPublicUrl must not be Ferry's own origin", {
      field: 'apps.sandboxPublicUrl',
    });
  }
  try {
    return await startAppsSandbox({
      host,
      port,
      ...(apps.sandboxPublicUrl ? { publicUrl: apps.sandboxPublicUrl } : {}),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new FerryError(
      'E_INVALID_INPUT',
      `Port ${port} on ${host} (the MCP Apps sandbox origin) is in use. Pick another with apps.sandboxPort or FERRY_APPS_SANDBOX_PORT.`,
      { field: 'apps.sandboxPort' },
    );
  }
}

/**
 * Binds the port and lets it go again, so a start on a taken port fails before storage is opened
 * and the sandbox probed (seconds, with a user created and cgroups swept), not after.
 */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createNetServer();
  await new Promise<void>((resolvePromise, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port }, () => resolvePromise());
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw portInUse(host, port);
    // Anything else (an address this machine does not have) is for listen() to report.
  });
  if (probe.listening) await new Promise<void>((done) => probe.close(() => done()));
}

function portInUse(host: string, port: number): FerryError {
  return new FerryError(
    'E_INVALID_INPUT',
    `Port ${port} on ${host} is in use: is Ferry already running? Pick another with --port or FERRY_PORT.`,
    { field: 'server.port' },
  );
}

/** Storage, catalog, auth, sandbox and LLM as the status bar and the startup summary show them. */
function describeStatus(
  config: FerryConfig,
  storage: OpenedStorage,
  sandbox: SandboxProbe,
  cwd: string,
  serverWarnings: readonly string[],
): FerryStatus {
  const s = config.storage;
  const blob =
    s.blob.driver === 'local' ? `local disk (${shown(s.blob.root, cwd)})` : `S3 (bucket ${s.blob.bucket})`;
  const auth = config.app.auth;
  const warnings: string[] = [];
  if (sandbox.warning) warnings.push(sandbox.warning);
  warnings.push(...serverWarnings);
  if (auth.mode === 'local' && !isLoopback(config.app.server.host)) {
    warnings.push(`local auth on ${config.app.server.host}: everyone who can reach it is "${auth.user}"`);
  }
  warnings.push(...config.warnings);
  return {
    version: FERRY_VERSION,
    storage: `${blob}, tokens ${storage.modes.tokens}`,
    catalog: s.catalog.driver === 'sqlite' ? `SQLite (${shown(s.catalog.filename, cwd)})` : 'PostgreSQL',
    auth:
      auth.mode === 'local'
        ? `local (single user "${auth.user}")`
        : `proxy (${auth.header} with ${auth.proxySecretHeader}, from ${auth.trustedProxies.join(', ')})`,
    llm: 'not configured',
    sandbox: sandboxStatus(sandbox),
    warnings,
  };
}

function summarize(
  url: string,
  config: FerryConfig,
  status: FerryStatus,
  cwd: string,
  /** The base URL of the file provider's endpoints; undefined when it is off. */
  providerBase: string | undefined,
  /** Scale mode's shared state (`Redis (host:port)`, this instance's id); undefined: one instance. */
  shared: { label: string; instanceId: string } | undefined,
): string[] {
  const servers = config.host.servers;
  const names = Object.keys(servers);
  const disabled = names.filter((name) => (servers[name] as { enabled?: boolean }).enabled === false);
  const enabled = names.filter((name) => !disabled.includes(name));
  return [
    `Ferry is listening on ${url}`,
    `  config   ${config.path ? shown(config.path, cwd) : '(none: defaults)'}`,
    `  storage  ${status.storage}`,
    `  catalog  ${status.catalog}`,
    `  shared   ${shared ? `${shared.label}, this instance ${shared.instanceId}` : '(none: one instance)'}`,
    `  sandbox  ${status.sandbox.summary}`,
    ...(status.appsSandboxUrl
      ? [`  apps     MCP Apps sandbox origin ${new URL(status.appsSandboxUrl).origin}`]
      : []),
    `  LLM      ${status.llm}`,
    `  auth     ${status.auth}`,
    `  servers  ${enabled.join(', ') || '(none)'}${disabled.length ? ` (disabled: ${disabled.join(', ')})` : ''}`,
    `  file provider  ${providerBase === undefined ? 'off' : `on: ${providerBase}${fileProviderPath('{user}')} (and /compat)`}`,
    ...status.warnings.map((warning) => `  WARNING  ${warning}`),
  ];
}

/** One audit line per callback: who, which server, what, how it went. Never a file's content. */
function auditLine(event: ProviderCallbackEvent): Record<string, unknown> {
  return {
    user: event.username,
    server: event.server,
    tool: event.tool,
    path: event.path,
    ok: event.ok,
    errorType: event.errorType,
    bytes: event.bytes,
    durationMs: event.durationMs,
  };
}

function shown(path: string, cwd: string): string {
  const rel = isAbsolute(path) ? relative(cwd, path) : path;
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function stripQuery(url: string | undefined): string {
  return (url ?? '').split('?', 1)[0] ?? '';
}
