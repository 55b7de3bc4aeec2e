// Answers to a server's questions during a call (MCP elicitation, announced by the call's
// `elicitation` event). File fields (SEP-2356 x-mcp-file) are answered with My Files ids; the host
// checks them against the field's accept/maxSize and sends the bytes as a data URI.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { notFound } from '../http/api-error.js';
import { errorResponses, IdSchema } from '../http/schemas.js';

const ParamsSchema = z.object({ id: IdSchema, elicitationId: IdSchema });

const AnswerBodySchema = z
  .strictObject({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .optional()
      .describe('Values of the plain fields (accept only)'),
    files: z
      .record(z.string(), z.union([IdSchema, z.array(IdSchema)]))
      .optional()
      .describe('My Files ids for the x-mcp-file fields (accept only)'),
  })
  .meta({ id: 'ElicitationAnswer' });

export const callElicitationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls, host } = app.ferry;

  app.post(
    '/calls/:id/elicitations/:elicitationId',
    {
      schema: {
        summary: 'Answer a question the server asked during a call',
        description:
          '404 when the call or the question is unknown, or the question was already answered, cancelled or timed out; 4xx with the error envelope when the answer does not fit the form (the question stays open).',
        tags: ['calls'],
        params: ParamsSchema,
        body: AnswerBodySchema,
        response: { 200: z.object({ answered: z.literal(true) }), ...errorResponses },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const { id, elicitationId } = request.params;
      if (!calls.get(owner, id)) throw notFound('No such call', { callId: id });
      const answered = await host.answerElicitation({ callId: id, elicitationId, owner, ...request.body });
      if (!answered) throw notFound('No open question with this id', { callId: id, elicitationId });
      return { answered: true as const };
    },
  );
};
