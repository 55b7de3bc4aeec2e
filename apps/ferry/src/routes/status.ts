// GET /api/status: the effective modes (storage, catalog, auth, sandbox, LLM) and the warnings an
// operator or user must see, such as local tools running without the sandbox.
import { SANDBOX_MODES } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { errorResponses } from '../http/schemas.js';

const StatusSchema = z
  .object({
    username: z.string(),
    version: z.string(),
    storage: z.string(),
    catalog: z.string(),
    auth: z.string(),
    llm: z.string(),
    sandbox: z.object({
      mode: z.enum(SANDBOX_MODES),
      effectiveMode: z
        .enum(['sandboxed', 'unsandboxed', 'refused'])
        .describe(
          'refused: mode required without bubblewrap, every local server fails with E_SANDBOX_UNAVAILABLE',
        ),
      available: z.boolean(),
      bwrapVersion: z.string().optional(),
      reason: z.string().optional(),
      warning: z.string().optional(),
      runsAs: z
        .object({ uid: z.number(), gid: z.number(), name: z.string(), how: z.enum(['setpriv', 'userns']) })
        .optional()
        .describe(
          'The host user sandboxed tools run as: setpriv (Ferry is root) or userns (Ferry’s own uid)',
        ),
      sees: z
        .object({ root: z.array(z.string()), uid: z.number() })
        .optional()
        .describe('What the capability probe’s tool saw: the top level of its root, and its uid'),
      network: z
        .object({ available: z.boolean(), helper: z.string().optional(), reason: z.string().optional() })
        .optional()
        .describe('What "network": true gets: an isolated user-mode stack, or why there is none'),
      summary: z.string(),
    }),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'Status' });

export const statusRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/status',
    {
      schema: {
        summary: 'Effective modes of this Ferry and the warnings to show (e.g. tools not sandboxed)',
        tags: ['session'],
        response: { 200: StatusSchema, ...errorResponses },
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
