// What the routes use, decorated on the app as `app.ferry` and typed by declaration merging
// (fastify docs/Reference/TypeScript.md). Routes only adapt HTTP to these; nothing else.
import type { Agent } from '@ferry/agent';
import type { FileProvider, Host, RemoteAuth } from '@ferry/host';
import type { ConversationStore, FileStore } from '@ferry/storage';
import type { Authenticator } from './auth/authenticate.js';
import type { Sessions } from './auth/sessions.js';
import type { CallRegistry } from './calls/call-registry.js';
import type { ChatTurns } from './chat/chat-turns.js';
import type { AppConfig } from './config/app-config.js';
import type { UserEvents } from './events/user-events.js';
import type { PathRedactor } from './http/redact-paths.js';
import type { Drain } from './ops/drain.js';
import type { AppMetrics } from './ops/metrics.js';
import type { Readiness } from './ops/readiness.js';
import type { InstanceBus } from './shared/instance-bus.js';
import type { FerryStatus } from './status.js';
import type { WorkspaceJanitor } from './workspaces/workspace-janitor.js';

/**
 * The part of the host the API needs (a test may pass a double; one without
 * `startSessionServers` starts nothing when a session opens).
 */
export type AppHost = Pick<Host, 'registry' | 'listTools' | 'callTool' | 'answerElicitation'> &
  Partial<Pick<Host, 'startSessionServers' | 'pool' | 'readUiResource'>>;

export interface FerryServices {
  files: FileStore;
  host: AppHost;
  config: AppConfig;
  authenticator: Authenticator;
  sessions: Sessions;
  calls: CallRegistry;
  redact: PathRedactor;
  /** The model loop; `configured` is false when no model is set (chat answers 503). */
  agent: Agent;
  /** Chats with the model; undefined when the app was built without them (chat answers 503). */
  conversations: ConversationStore | undefined;
  chatTurns: ChatTurns;
  status: FerryStatus;
  userEvents: UserEvents;
  /** When users' workspaces are emptied and removed. */
  workspaces: WorkspaceJanitor;
  /** The file provider tools call back to; undefined when it is off (its routes answer 404). */
  fileProvider: FileProvider | undefined;
  /** Users' OAuth connections to remote servers; undefined when the app was built without them (404). */
  remoteAuth: RemoteAuth | undefined;
  /** This app's Prometheus registry and what feeds it (GET /metrics). */
  metrics: AppMetrics;
  /** The checks of GET /readyz; a part Ferry comes to depend on registers its own. */
  readiness: Readiness;
  /** The other Ferry instances (scale mode); the embedded default's is this instance alone. */
  bus: InstanceBus;
  /** The graceful stop: new work refused, running calls and uploads given time (ops/drain.ts). */
  drain: Drain;
}

declare module 'fastify' {
  interface FastifyInstance {
    ferry: FerryServices;
  }
}
