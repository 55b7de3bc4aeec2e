// The per-request view of auth and sessions, installed on the /api context (fastify
// encapsulation: only routes registered inside it are authenticated). A route says how it is
// reached through its `config.auth`: 'required' (default), 'token' (a signed download token may
// stand in for the user, see routes/file-content.ts) or 'none'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../http/api-error.js';
import type { Authenticator, Identity } from './authenticate.js';
import { checkSessionId, SESSION_HEADER, type SessionRef, type Sessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null;
  }
  interface FastifyContextConfig {
    auth?: 'required' | 'token' | 'none';
  }
}

export function installAuth(
  app: FastifyInstance,
  deps: { authenticator: Authenticator; sessions: Sessions },
): void {
  app.decorateRequest('identity', null);
  // onRequest, before the body is read: an unauthenticated upload is refused without taking it.
  app.addHook('onRequest', async (request, reply) => {
    const mode = request.routeOptions.config.auth ?? 'required';
    if (mode === 'none') return;
    try {
      request.identity = await deps.authenticator.identify(request);
    } catch (error) {
      const token = (request.query as Record<string, unknown> | undefined)?.token;
      if (mode === 'token' && typeof token === 'string') return;
      throw error;
    }
    const id = checkSessionId(request.headers[SESSION_HEADER]);
    if (id !== undefined) {
      deps.sessions.touch(request.identity, id);
      reply.header(SESSION_HEADER, id);
    }
  });
}

export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw unauthorized('Not signed in');
  return request.identity;
}

/** The request's session: the one it names, else a new one (returned in X-Ferry-Session). */
export function sessionOf(request: FastifyRequest, reply: FastifyReply, sessions: Sessions): SessionRef {
  const session = sessions.open(identityOf(request), checkSessionId(request.headers[SESSION_HEADER]));
  reply.header(SESSION_HEADER, session.id);
  return session;
}
