// GET /api/status: the effective modes (storage, catalog, auth, sandbox, LLM) and the warnings an
// operator or user must see, such as local tools running without the sandbox.
import { StatusDtoSchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { identityOf } from '../auth/request-context.js';
import { errorResponses } from '../http/schemas.js';

export const statusRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/status',
    {
      schema: {
        summary: 'Effective modes of this Ferry and the warnings to show (e.g. tools not sandboxed)',
        tags: ['session'],
        response: { 200: StatusDtoSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { status, redact } = app.ferry;
      const { username } = identityOf(request);
      // Probe messages may quote host paths (bwrap's own errors).
      return redact({ ...status, username });
    },
  );
};
