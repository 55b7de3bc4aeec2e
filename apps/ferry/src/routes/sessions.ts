// Who am I, and sessions: a browser tab or CLI run opens one (or gets one with its first upload
// or call) and ends it when done; with persist_files_across_sessions=false its files go with it.
import { MeDtoSchema, SessionEndedSchema, SessionSchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf, sessionOf } from '../auth/request-context.js';
import { checkSessionId, SESSION_HEADER } from '../auth/sessions.js';
import { errorResponses } from '../http/schemas.js';

export const sessionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { files, sessions, authenticator } = app.ferry;

  app.get(
    '/me',
    {
      schema: {
        summary: 'The signed-in user, their usage and limits',
        tags: ['session'],
        response: {
          200: MeDtoSchema,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { owner, username } = identityOf(request);
      const [usage, flags] = await Promise.all([files.usage(owner), files.flags(owner)]);
      return {
        username,
        authMode: authenticator.mode,
        session: checkSessionId(request.headers[SESSION_HEADER]) ?? null,
        usage: { bytes: usage.bytes, count: usage.count, quotaBytes: usage.quotaBytes },
        limits: {
          maxFileSizeBytes: flags.max_file_size_bytes,
          base64SizeLimitBytes: flags.base64_size_limit_bytes,
          persistFilesAcrossSessions: flags.persist_files_across_sessions,
        },
      };
    },
  );

  app.post(
    '/sessions',
    {
      schema: {
        summary: 'Open a session (or keep the one in X-Ferry-Session alive)',
        tags: ['session'],
        response: { 201: SessionSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request, reply, sessions);
      reply.code(201);
      return { id: session.id, expiresAt: session.expiresAt.toISOString() };
    },
  );

  app.delete(
    '/sessions/:id',
    {
      schema: {
        summary: 'End a session: its session-only files are deleted',
        description:
          "When it was the user's last session on this Ferry and no call of theirs is running, their " +
          'workspace (/tmp/{username}/ as tools see it) is emptied; what is in My Files stays, and ' +
          'their local servers run on until idle (each its idleSeconds).',
        tags: ['session'],
        params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, 'not a session id') }),
        response: { 200: SessionEndedSchema, ...errorResponses },
      },
    },
    async (request) => {
      const identity = identityOf(request);
      const deletedFiles = await sessions.end(identity, request.params.id);
      // The user's last session here: their workspace is emptied now (unless a call still runs).
      if (!sessions.liveUsers().has(identity.username)) {
        await app.ferry.workspaces.sessionEnded(identity.username);
      }
      return { deletedFiles };
    },
  );
};
