import { availableParallelism } from 'node:os';
import {
  DEFAULT_MAX_RESULT_BYTES,
  FerryError,
  isValidUsername,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
} from '@ferry/contract';
import type { Implementation, OAuthClientProvider } from '@modelcontextprotocol/client';
import { Client, type VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { RemoteServerConfig, ServerConfig } from '../servers/server-config.js';
import type { ServerRegistry } from '../servers/server-registry.js';
import type { ConnectionPool, PoolStats, ToolConnection } from './connection.js';
import {
  type ConnectionEventListener,
  createStderrLog,
  type ServerStderrSink,
  writeStderrRecord,
} from './connection-events.js';
import type { ConnectionExtrasSource } from './connection-extras.js';
import { MAX_LINE_BYTES } from './json-lines.js';
import { type ServerLauncher, unsandboxedLauncher } from './launcher.js';
import { openTransport, StderrTail } from './open-transport.js';
import { PooledConnection } from './pooled-connection.js';

export interface ConnectionPoolOptions {
  registry: ServerRegistry;
  /** Builds the command of a local server for a user. @default unsandboxedLauncher */
  launcher?: ServerLauncher;
  /** The idle clock. @default Date.now */
  now?: () => number;
  /** @default { name: 'ferry', version: '0.1.0' } */
  clientInfo?: Implementation;
  /**
   * Runs on every new client before it connects: the place to declare capabilities and register
   * request handlers (elicitation, file-provider callbacks).
   */
  setupClient?: (client: Client, server: ServerConfig, user: string) => void;
  /**
   * What each connection gets besides its server's config (the user's file provider), asked for
   * once before it opens; its `release` runs once it has closed or failed to open.
   */
  extras?: ConnectionExtrasSource;
  /** Connection lifecycle: connected, closed (with why), tools-changed, transport errors. */
  onEvent?: ConnectionEventListener;
  /**
   * Where local servers' stderr goes, as data: one record per line, labelled with server and
   * user, control characters escaped, cut at 2 KiB, at most 50 lines/s (bursts of 200) per
   * server and user, then a count of the lines dropped. @default JSON records on Ferry's stderr
   * (`writeStderrRecord`), unless `onStderr` is given
   */
  stderrLog?: ServerStderrSink;
  /**
   * Local servers' stderr raw, exactly as written (a tool controls every byte of it: never copy
   * it into a log or terminal unescaped). Given without `stderrLog`, it replaces the default log
   * (tests pass a no-op to keep quiet).
   */
  onStderr?: (server: string, user: string, text: string) => void;
  /** Limit for starting a server and the MCP handshake. @default 30000 */
  connectTimeoutMs?: number;
  /** How long a local server gets to exit on its own when closed (idle, pool close). @default 2000 */
  closeGraceMs?: number;
  /**
   * Largest result (one message) a server may send. A longer one is dropped as it arrives, never
   * held whole, and its call fails with E_RESULT_TOO_LARGE; the connection goes on. Applies to
   * stdio and Streamable HTTP (not to legacy SSE). Why 64 MiB: see DEFAULT_MAX_RESULT_BYTES.
   * @default DEFAULT_MAX_RESULT_BYTES (64 MiB); at most ~512 MiB (V8's string limit)
   */
  maxResultBytes?: number;
  /**
   * Local servers starting at once; more wait their turn, and their connect timeout starts with
   * their turn. Fifty users arriving together must not each get 1/50 of the CPU for a start that
   * needs a whole core for a second and then all time out. @default the number of CPUs
   */
  maxConcurrentStarts?: number;
  /**
   * OAuth of remote servers (connections/oauth/remote-auth.ts `providerFor`): a provider per
   * connection. When the server asks for an authorization the provider cannot give, it sets
   * `authorizationRequired`, and that error (E_AUTH_REQUIRED) fails the `get`. @default none
   */
  authProvider?: (
    server: RemoteServerConfig,
    user: string,
  ) => (OAuthClientProvider & { readonly authorizationRequired?: Error | undefined }) | undefined;
}

/**
 * The pool behind `ConnectionPool`: one connection per (server, user), opened on first use,
 * shared by concurrent and later calls, closed after the server's `idleSeconds` without calls,
 * and replaced by a new one on the next `get` after it crashed, was killed or was reaped.
 */
export function createConnectionPool(options: ConnectionPoolOptions): ConnectionPool {
  const { registry } = options;
  const launcher = options.launcher ?? unsandboxedLauncher;
  const now = options.now ?? Date.now;
  const clientInfo = options.clientInfo ?? { name: 'ferry', version: '0.1.0' };
  const onEvent = options.onEvent ?? (() => {});
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(maxResultBytes) || maxResultBytes < 1024 || maxResultBytes > MAX_LINE_BYTES) {
    throw new RangeError(
      `maxResultBytes must be an integer from 1024 to ${MAX_LINE_BYTES}, got ${options.maxResultBytes}`,
    );
  }
  const sink = options.stderrLog ?? (options.onStderr ? undefined : writeStderrRecord);
  const stderrLog = sink && createStderrLog({ sink });
  /** The usable (or starting) connection of each (server, user). */
  const current = new Map<string, Promise<PooledConnection>>();
  /** Every connection not fully closed yet, usable or not, so `close()` can wait for them. */
  const live = new Set<PooledConnection>();
  /** Configs whose server answered the legacy way: later connects skip the probe. */
  const legacyServers = new WeakSet<ServerConfig>();
  let closed = false;
  const startSlots = createSlots(options.maxConcurrentStarts ?? availableParallelism());

  function open(server: ServerConfig, user: string, key: string): Promise<PooledConnection> {
    const pending: Promise<PooledConnection> = (async () => {
      // Remote servers cost Ferry nothing to connect to: only local starts take a slot.
      const release = server.transport === 'stdio' ? await startSlots.take() : () => {};
      try {
        return await start(server, user, key, () => pending);
      } finally {
        release();
      }
    })();
    pending.catch(() => {
      if (current.get(key) === pending) current.delete(key);
    });
    return pending;
  }

  async function start(
    server: ServerConfig,
    user: string,
    key: string,
    self: () => Promise<PooledConnection>,
  ): Promise<PooledConnection> {
    const tail = new StderrTail();
    const extras = await options.extras?.(server, user);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      extras?.release();
    };
    const lines = server.transport === 'stdio' ? stderrLog?.open(server.name, user) : undefined;
    const authProvider = server.transport === 'stdio' ? undefined : options.authProvider?.(server, user);
    const opened = await openTransport(server, user, {
      ...(authProvider && { authProvider }),
      launcher,
      onStderr: (text) => {
        tail.push(text);
        lines?.write(text);
        options.onStderr?.(server.name, user, text);
      },
      ...(options.closeGraceMs !== undefined && { closeGraceMs: options.closeGraceMs }),
      maxResultBytes,
      ...(extras && { extras }),
    }).catch((error: unknown) => {
      lines?.end();
      release();
      throw error;
    });
    const client = new Client(clientInfo, {
      capabilities: {
        elicitation: { form: {}, url: {} },
        // MCP Apps (SEP-1865): servers may offer their ui:// views only to hosts that say so.
        extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } },
      },
      versionNegotiation: negotiationOf(server),
    });
    options.setupClient?.(client, server, user);
    const connection = new PooledConnection({
      server: server.name,
      user,
      client,
      opened,
      idleMs: server.idleSeconds * 1000,
      now,
      ...(extras?.renewAt !== undefined && { renewAt: extras.renewAt }),
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      ...(legacyServers.has(server) && { prior: { kind: 'legacy' } as const }),
      stderrTail: () => tail.text,
      onRetired: () => {
        if (current.get(key) === self()) current.delete(key);
      },
      onEvent,
    });
    live.add(connection);
    void connection.closed.then(() => {
      live.delete(connection);
      lines?.end();
      release();
    });
    await connection.open().catch((error: unknown) => {
      throw authProvider?.authorizationRequired ?? error;
    });
    // A legacy verdict is remembered for this server's config: a server that stays silent on the
    // probe costs PROBE_TIMEOUT_MS once, not on every start. A modern one is re-probed (one round trip).
    if (connection.protocolEra === 'legacy') legacyServers.add(server);
    return connection;
  }

  return {
    async get(serverName: string, user: string): Promise<ToolConnection> {
      if (closed) throw new FerryError('E_INTERNAL', 'The connection pool is closed');
      if (!isValidUsername(user))
        throw new FerryError('E_INVALID_INPUT', 'Invalid username', { field: 'user' });
      const server = registry.get(serverName);
      if (!server.enabled) {
        throw new FerryError('E_INVALID_INPUT', `MCP server "${server.name}" is disabled`, {
          field: 'server',
          server: server.name,
        });
      }
      const key = `${server.name}\n${user}`;
      // A connection can die between being opened and being handed out (a server that exits
      // right after the handshake); one fresh attempt, then the error is the caller's.
      for (let attempt = 1; ; attempt += 1) {
        if (closed) throw new FerryError('E_INTERNAL', 'The connection pool is closed');
        let pending = current.get(key);
        if (pending === undefined) {
          pending = open(server, user, key);
          current.set(key, pending);
        }
        const connection = await pending;
        // Its token is about to expire: calls from now on go to a new connection (once; a
        // connection due at birth is still used rather than renewed in a loop).
        if (connection.isOpen && connection.dueForRenewal && attempt === 1) {
          connection.drain();
          if (current.get(key) === pending) current.delete(key);
          continue;
        }
        if (connection.isOpen) {
          connection.touch();
          return connection;
        }
        if (attempt >= 2) {
          throw new FerryError('E_INTERNAL', `MCP server "${server.name}" keeps closing after it starts`, {
            server: server.name,
          });
        }
      }
    },

    async closeUser(user: string): Promise<number> {
      const starting = [...current].filter(([key]) => key.slice(key.indexOf('\n') + 1) === user);
      for (const [key] of starting) current.delete(key);
      await Promise.allSettled(starting.map(([, pending]) => pending));
      const mine = [...live].filter((connection) => connection.user === user);
      await Promise.all(mine.map((connection) => connection.close('released')));
      return mine.length;
    },

    stats(): PoolStats {
      const connections = { local: 0, remote: 0 };
      for (const connection of live) connections[connection.kind] += 1;
      return { connections, starts: startSlots.counts() };
    },

    async close(): Promise<void> {
      closed = true;
      const pending = [...current.values()];
      current.clear();
      await Promise.allSettled(pending);
      await Promise.all([...live].map((connection) => connection.close('pool-closed')));
    },
  };
}

/** A counting semaphore: `take` waits for a free slot and returns its release. */
function createSlots(count: number): {
  take(): Promise<() => void>;
  counts(): { running: number; waiting: number };
} {
  const size = Math.max(1, Math.floor(count));
  let free = size;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  return {
    counts: () => ({ running: size - free, waiting: waiting.length }),
    async take() {
      if (free > 0) free -= 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release();
      };
    },
  };
}

/**
 * How long a local server may stay silent on the `server/discover` probe before it is taken for a
 * 2025 server and sent `initialize` (some legacy servers ignore requests before `initialize`). A
 * remote server gets the whole connect timeout: on HTTP silence is an outage, not a legacy signal.
 */
const PROBE_TIMEOUT_MS = 3_000;

/** The SDK's negotiation for a server's `protocol` setting. */
function negotiationOf(server: ServerConfig): VersionNegotiationOptions {
  if (server.protocol === '2025-11-25') return { mode: 'legacy' };
  if (server.protocol === '2026-07-28') return { mode: { pin: '2026-07-28' } };
  return server.transport === 'stdio'
    ? { mode: 'auto', probe: { timeoutMs: PROBE_TIMEOUT_MS } }
    : { mode: 'auto' };
}
