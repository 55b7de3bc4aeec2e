// Starts Ferry: config (once, validated, frozen) → storage → host → app → listen. Everything the
// app needs is made here and closed here, in reverse order; the app itself never listens.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { FerryError } from '@ferry/contract';
import { createHost, type Host } from '@ferry/host';
import { type OpenedStorage, openStorage } from '@ferry/storage';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type FerryConfig, loadFerryConfig } from './config/load-config.js';

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
  /** stderr of local MCP servers. @default Ferry's stderr */
  onServerStderr?: (server: string, user: string, text: string) => void;
}

export interface RunningServer {
  url: string;
  config: FerryConfig;
  app: FastifyInstance;
  host: Host;
  storage: OpenedStorage;
  /** The startup summary: URL and effective modes, one line each. */
  summary: string[];
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = loadFerryConfig({ env, cwd, ...(options.configPath ? { path: options.configPath } : {}) });
  refuseRequiredSandbox(config);

  const dataDir = resolve(cwd, config.storage.dataDir);
  const workspacesRoot = join(dataDir, 'workspaces');
  const storage = await openStorage(config.storage);
  let baseUrl = config.app.server.publicUrl?.replace(/\/+$/, '') ?? '';
  const host = createHost({
    config: config.host,
    files: storage.files,
    workspacesRoot,
    downloadUrl: (fileId, token) =>
      `${baseUrl}/api/files/${fileId}/content?token=${encodeURIComponent(token)}`,
    ...(options.onServerStderr ? { pool: { onStderr: options.onServerStderr } } : {}),
  });
  const webRoot = resolve(cwd, 'apps/web/dist');
  const app = buildApp({
    files: storage.files,
    host,
    config: config.app,
    hostPaths: { data: dataDir, workspace: workspacesRoot },
    ...(existsSync(webRoot) ? { webRoot } : {}),
    logger: {
      level: options.logLevel ?? env.FERRY_LOG_LEVEL ?? 'warn',
      // Download tokens ride in query strings; they must not end up in logs.
      serializers: { req: (request) => ({ method: request.method, url: stripQuery(request.url) }) },
    },
  });

  const close = async () => {
    await app.close().catch(() => undefined);
    await host.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
  };
  const listenHost = options.host ?? config.app.server.host;
  const port = options.port ?? config.app.server.port;
  try {
    await app.listen({ host: listenHost, port });
  } catch (error) {
    await close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new FerryError(
        'E_INVALID_INPUT',
        `Port ${port} on ${listenHost} is in use: is Ferry already running? Pick another with --port or FERRY_PORT.`,
        { field: 'server.port' },
      );
    }
    throw error;
  }
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${actualPort}`;
  if (baseUrl === '') baseUrl = url;
  return { url, config, app, host, storage, summary: summarize(url, config, storage, cwd), close };
}

function summarize(url: string, config: FerryConfig, storage: OpenedStorage, cwd: string): string[] {
  const shown = (path: string) => {
    const rel = isAbsolute(path) ? relative(cwd, path) : path;
    return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
  };
  const s = config.storage;
  const blob =
    s.blob.driver === 'local' ? `local disk (${shown(s.blob.root)})` : `S3 (bucket ${s.blob.bucket})`;
  const catalog = s.catalog.driver === 'sqlite' ? `SQLite (${shown(s.catalog.filename)})` : 'PostgreSQL';
  const auth =
    config.app.auth.mode === 'local'
      ? `local (single user "${config.app.auth.user}")`
      : `proxy (${config.app.auth.header} from ${config.app.auth.trustedProxies.join(', ')})`;
  const servers = config.host.servers;
  const names = Object.keys(servers);
  const disabled = names.filter((name) => (servers[name] as { enabled?: boolean }).enabled === false);
  const enabled = names.filter((name) => !disabled.includes(name));
  const lines = [
    `Ferry is listening on ${url}`,
    `  config   ${config.path ? shown(config.path) : '(none: defaults)'}`,
    `  storage  ${blob}, tokens ${storage.modes.tokens}`,
    `  catalog  ${catalog}`,
    '  sandbox  off/unsandboxed: local MCP servers run as this user, without isolation',
    '  LLM      not configured',
    `  auth     ${auth}`,
    `  servers  ${enabled.join(', ') || '(none)'}${disabled.length ? ` (disabled: ${disabled.join(', ')})` : ''}`,
  ];
  if (config.app.auth.mode === 'local' && !isLoopback(config.app.server.host)) {
    lines.push(
      `  WARNING  local auth on ${config.app.server.host}: everyone who can reach it is "${config.app.auth.user}"`,
    );
  }
  for (const warning of config.warnings) lines.push(`  WARNING  ${warning}`);
  return lines;
}

/**
 * No sandbox exists yet (packages/sandbox is being built), so a server that demands one must not
 * start unsandboxed: fail at startup, naming it, rather than quietly running it without isolation.
 */
function refuseRequiredSandbox(config: FerryConfig): void {
  const required = Object.entries(config.host.servers)
    .filter(([, server]) => {
      const s = server as { transport?: string; sandbox?: string; enabled?: boolean };
      return s.transport === 'stdio' && s.sandbox === 'required' && s.enabled !== false;
    })
    .map(([name]) => name);
  if (required.length > 0) {
    throw new FerryError(
      'E_SANDBOX_UNAVAILABLE',
      `These servers require the sandbox, which this Ferry does not have yet: ${required.join(', ')}. Set "sandbox": "auto" or disable them.`,
      { servers: required },
    );
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function stripQuery(url: string | undefined): string {
  return (url ?? '').split('?', 1)[0] ?? '';
}
