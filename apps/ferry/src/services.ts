// What the routes use, decorated on the app as `app.ferry` and typed by declaration merging
// (fastify docs/Reference/TypeScript.md). Routes only adapt HTTP to these; nothing else.
import type { Host } from '@ferry/host';
import type { FileStore } from '@ferry/storage';
import type { Authenticator } from './auth/authenticate.js';
import type { Sessions } from './auth/sessions.js';
import type { CallRegistry } from './calls/call-registry.js';
import type { AppConfig } from './config/app-config.js';
import type { UserEvents } from './events/user-events.js';
import type { PathRedactor } from './http/redact-paths.js';
import type { FerryStatus } from './status.js';

/** The part of the host the API needs (a test may pass a double). */
export type AppHost = Pick<Host, 'registry' | 'listTools' | 'callTool' | 'answerElicitation'>;

export interface FerryServices {
  files: FileStore;
  host: AppHost;
  config: AppConfig;
  authenticator: Authenticator;
  sessions: Sessions;
  calls: CallRegistry;
  redact: PathRedactor;
  status: FerryStatus;
  userEvents: UserEvents;
}

declare module 'fastify' {
  interface FastifyInstance {
    ferry: FerryServices;
  }
}
