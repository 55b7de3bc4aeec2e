// buildApp(deps) assembles the HTTP API over a FileStore and a host and returns the Fastify
// instance; it never listens (server.ts does), so tests drive it with app.inject() or on a
// random port. Layout: the root holds the error handler, security headers, OpenAPI; everything
// under /api is one encapsulated context with authentication, one plugin per area.
import swagger from '@fastify/swagger';
import { type Agent, createAgent } from '@ferry/agent';
import type { FileProvider, RemoteAuth } from '@ferry/host';
import type { ConversationStore, FileStore } from '@ferry/storage';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { createAuthenticator } from './auth/authenticate.js';
import { installAuth } from './auth/request-context.js';
import { createSessions } from './auth/sessions.js';
import { createCallRegistry } from './calls/call-registry.js';
import { createChatTurns } from './chat/chat-turns.js';
import { createFileRequests } from './chat/file-requests.js';
import { type AppConfig, defaultAppConfig } from './config/app-config.js';
import { createUserEvents } from './events/user-events.js';
import { installBodyIdleTimeout } from './http/body-idle-timeout.js';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  installErrorHandler,
  pathOf,
} from './http/error-handler.js';
import { installOriginGuard } from './http/origin-guard.js';
import { registerRateLimit } from './http/rate-limit.js';
import { createPathRedactor } from './http/redact-paths.js';
import { installMaintenance } from './maintenance.js';
import { createDrain } from './ops/drain.js';
import { meteredHost } from './ops/metered-host.js';
import { type AppMetrics, createAppMetrics } from './ops/metrics.js';
import { createReadiness, drainCheck, type ReadinessCheck, sandboxCheck } from './ops/readiness.js';
import { installRequestLogBindings, withRequestLogBindings } from './ops/request-log.js';
import { callElicitationRoutes } from './routes/call-elicitations.js';
import { callEventRoutes } from './routes/call-events.js';
import { callRoutes } from './routes/calls.js';
import { canvasOpenRoutes } from './routes/canvas-opens.js';
import { chatRoutes } from './routes/chat.js';
import { fileContentRoutes } from './routes/file-content.js';
import { fileProviderEndpointRoutes, fileProviderTokenRoutes } from './routes/file-provider.js';
import { fileUploadRoutes } from './routes/file-upload.js';
import { fileRoutes } from './routes/files.js';
import { oauthRoutes } from './routes/oauth.js';
import { opsRoutes } from './routes/ops.js';
import { serverRoutes } from './routes/servers.js';
import { sessionRoutes } from './routes/sessions.js';
import { statusRoutes } from './routes/status.js';
import { uiResourceRoutes } from './routes/ui-resources.js';
import { announceFileChanges, userEventRoutes } from './routes/user-events.js';
import { userRoutes } from './routes/users.js';
import { webRoutes } from './routes/web.js';
import type { AppHost, FerryServices } from './services.js';
import { createMemoryInstanceBus } from './shared/instance-bus.js';
import type { SharedState } from './shared/shared-state.js';
import { FERRY_VERSION, type FerryStatus, unknownStatus } from './status.js';
import { handleUserDeletions } from './users/delete-user.js';
import { NO_WORKSPACES, type WorkspaceJanitor } from './workspaces/workspace-janitor.js';

export interface AppDeps {
  files: FileStore;
  host: AppHost;
  /** @default defaultAppConfig() */
  config?: AppConfig;
  /** Host directories replaced by their label in anything sent out, e.g. `{ workspace: '/srv/ferry/ws' }`. */
  hostPaths?: Readonly<Record<string, string>>;
  /** The built web app to serve at `/` (apps/web/dist); absent: a short page pointing at the API. */
  webRoot?: string;
  /** Effective modes for GET /api/status (server.ts fills it from the startup probe). */
  status?: FerryStatus;
  /** @default false */
  logger?: FastifyServerOptions['logger'];
  /** Epoch milliseconds. @default Date.now */
  now?: () => number;
  /**
   * How often sessions, calls and workspaces are swept (files: maintenance.fileSweepMinutes).
   * @default 60000
   */
  maintenanceIntervalMs?: number;
  /** How long a chat turn whose client went away runs on for a follower. @default 15 s (chat-turns.ts) */
  chatDetachGraceMs?: number;
  /**
   * The model loop (server.ts builds it from FERRY_LLM_*). Its calls are counted in `metrics` when
   * its host is the one given here, metered with them (ops/metered-host.ts), as server.ts does.
   * @default an agent with no model: chat answers 503
   */
  agent?: Agent;
  /** Where conversations are kept (openStorage's `conversations`). @default none: chat answers 503 */
  conversations?: ConversationStore;
  /**
   * Empties and removes users' workspaces (server.ts makes it over the host's pool; `host` should
   * then be wrapped with guardedHost). @default none: a host without local workspaces
   */
  workspaces?: WorkspaceJanitor;
  /**
   * The file provider (server.ts creates it when `fileProvider.enabled`): its endpoint and the
   * user's token API. @default none: those routes answer 404
   */
  fileProvider?: FileProvider;
  /** Users' OAuth connections to remote servers (server.ts makes it). @default none: /api/oauth answers 404 */
  remoteAuth?: RemoteAuth;
  /**
   * The app's metrics (server.ts makes them first, to meter the host it gives the agent too).
   * @default a registry of this app's own
   */
  metrics?: AppMetrics;
  /**
   * Checks GET /readyz runs besides the sandbox's (server.ts passes the catalog's and the blob
   * store's, ops/readiness.ts `storageChecks`). @default none
   */
  readiness?: readonly ReadinessCheck[];
  /**
   * What this instance shares with the others in scale mode (shared/shared-state.ts; server.ts
   * makes it from `redis`). The app uses it, its maker closes it. @default none: one instance
   */
  shared?: SharedState;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const config = deps.config ?? defaultAppConfig();
  const now = deps.now ?? Date.now;
  const metrics = deps.metrics ?? createAppMetrics();
  // Every call counted, from the API and (with server.ts's agent on the same metered host) chat.
  const host = meteredHost(deps.host, metrics);
  metrics.watchPool(() => host.pool?.stats?.());
  const app = Fastify({
    logger: withRequestLogBindings(deps.logger),
    // SSE streams and long uploads must not pin a closing server, nor die at Node's 5-minute
    // request timeout; slow headers are still cut off by Node's headersTimeout, and a body that
    // stops arriving by server.bodyIdleTimeoutMs (http/body-idle-timeout.ts).
    forceCloseConnections: true,
    requestTimeout: 0,
    routerOptions: { maxParamLength: 200 },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const redact = createPathRedactor(deps.hostPaths ?? {});
  const authenticator = createAuthenticator(config.auth, deps.files);
  const sessions = createSessions({
    files: deps.files,
    idleMinutes: config.sessions.idleMinutes,
    now,
    ...(deps.shared && {
      activity: deps.shared.createSessionActivity({
        onError: (error) => app.log.warn({ err: error }, 'shared session activity'),
      }),
    }),
    // The servers marked `start: "session"` start while the user uploads or types.
    onOpened: (user) => {
      void host.startSessionServers?.(user.username).then((starts) => {
        for (const start of starts) {
          if (start.ok) continue;
          const reason = start.error instanceof Error ? start.error.message : String(start.error);
          app.log.warn({ server: start.server, user: user.username }, `session start failed: ${reason}`);
        }
      });
    },
  });
  const userEvents = deps.shared
    ? deps.shared.createUserEvents({
        now,
        onError: (error) => app.log.warn({ err: error }, 'shared user events'),
      })
    : createUserEvents({ now });
  const calls = createCallRegistry({
    callTool: (request, emit) => host.callTool(request, emit),
    answerElicitation: (answer) => host.answerElicitation(answer),
    limits: config.calls,
    redact,
    now,
    onError: (error, callId) => app.log.error({ err: error, callId }, 'tool call crashed'),
    ...(deps.shared && {
      store: deps.shared.createCallStore({
        limits: config.calls,
        now,
        onError: (error) => app.log.warn({ err: error }, 'shared call store'),
      }),
      instance: deps.shared.instanceId,
      bus: deps.shared.bus,
      reapGone: deps.shared.reapGone,
    }),
    onEvent: (record, event) => {
      // A server that cannot start (or died under the call) is the operator's business: one
      // line each time, its reason without a stack (the server's own stderr is logged apart).
      if (event.type === 'failed' && event.code === 'E_TOOL_UNAVAILABLE') {
        app.log.warn({ callId: record.callId, server: record.server, code: event.code }, event.message);
      }
      // Fire and forget: publish never rejects, and keeps this instance's order per user.
      void userEvents.publish(record.owner, { type: 'call', event });
      if (event.type === 'file_stored') {
        void userEvents.publish(record.owner, {
          type: 'files_changed',
          reason: 'stored',
          fileIds: [event.file.id],
        });
      }
    },
  });
  const drain = createDrain();
  const services: FerryServices = {
    files: deps.files,
    host,
    config,
    authenticator,
    sessions,
    calls,
    redact,
    status: deps.status ?? unknownStatus(),
    userEvents,
    agent:
      deps.agent ??
      createAgent({
        model: undefined,
        host,
        files: deps.files,
        notConfiguredReason: 'no agent was given',
      }),
    conversations: deps.conversations,
    chatTurns: createChatTurns({
      fileRequests: createFileRequests(),
      onError: (error) => app.log.warn({ err: error }, 'chat turn log'),
      ...(deps.shared && {
        log: deps.shared.createTurnLog({
          onError: (error) => app.log.warn({ err: error }, 'shared chat turns'),
        }),
        instance: deps.shared.instanceId,
        bus: deps.shared.bus,
      }),
      ...(deps.chatDetachGraceMs === undefined ? {} : { detachGraceMs: deps.chatDetachGraceMs }),
    }),
    workspaces: deps.workspaces ?? NO_WORKSPACES,
    fileProvider: deps.fileProvider,
    remoteAuth: deps.remoteAuth,
    metrics,
    readiness: createReadiness([
      ...(deps.readiness ?? []),
      sandboxCheck(() => services.status),
      drainCheck(drain),
      ...(deps.shared ? [deps.shared.readiness] : []),
    ]),
    drain,
    bus: deps.shared?.bus ?? createMemoryInstanceBus(),
  };
  app.decorate('ferry', services);
  handleUserDeletions(services);
  installErrorHandler(app, redact);
  installBodyIdleTimeout(app.server, {
    idleMs: config.server.bodyIdleTimeoutMs,
    onTimeout: (request) =>
      app.log.info(
        { method: request.method, url: pathOf(request.url ?? '') },
        'request body stalled: cut off',
      ),
  });
  installMaintenance(app, services, deps.maintenanceIntervalMs ?? 60_000, deps.shared?.jobLock);

  // Synchronous hooks take the done callback: an async one costs a promise and a turn through
  // Fastify's thenable handling on every request (measured on small downloads).
  app.addHook('onRequest', (_request, reply, done) => {
    // Download tokens travel in URLs; no Referer may carry them elsewhere.
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    done();
  });

  app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ferry API',
        version: FERRY_VERSION,
        description:
          'Files, MCP servers and tool calls of a Ferry host. Errors are tool contract v2.1 envelopes.',
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.register(
    async (api) => {
      installOriginGuard(api, config);
      installAuth(api, { authenticator, sessions });
      // Counted per user, so after installAuth; before the routes, as it attaches itself to each.
      await registerRateLimit(api, {
        config: config.rateLimit,
        ...(deps.shared &&
          config.redis && { redis: { config: config.redis, instanceId: deps.shared.instanceId } }),
      });
      installRequestLogBindings(api);
      announceFileChanges(api);
      api.addHook('onRequest', (_request, reply, done) => {
        reply.header('cache-control', 'no-store');
        done();
      });
      await api.register(sessionRoutes);
      await api.register(statusRoutes);
      await api.register(fileRoutes);
      await api.register(fileUploadRoutes);
      await api.register(fileContentRoutes);
      await api.register(serverRoutes);
      await api.register(uiResourceRoutes);
      await api.register(callRoutes);
      await api.register(callEventRoutes);
      await api.register(callElicitationRoutes);
      await api.register(canvasOpenRoutes);
      await api.register(userEventRoutes);
      await api.register(chatRoutes);
      await api.register(userRoutes);
      await api.register(fileProviderTokenRoutes);
      await api.register(oauthRoutes);
    },
    { prefix: '/api' },
  );
  // Outside /api's context: a tool calling back is authenticated by the provider's token alone.
  app.register(fileProviderEndpointRoutes);
  // Outside /api's context too: probes and Prometheus carry no user (routes/ops.ts guards /metrics).
  app.register(opsRoutes);

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.register(webRoutes, { root: deps.webRoot });
  return app;
}
