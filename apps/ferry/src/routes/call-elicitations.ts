// Answers to a server's questions during a call (MCP elicitation, announced by the call's
// `elicitation` event). File fields (SEP-2356 x-mcp-file) are answered with My Files ids; the host
// checks them against the field's accept/maxSize and sends the bytes as a data URI. A link to open
// (URL mode) is answered with the action alone: Ferry never opens or fetches the link.
import { ElicitationAnsweredSchema, ElicitationAnswerSchema, IdSchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';

const ParamsSchema = z.object({ id: IdSchema, elicitationId: IdSchema });

export const callElicitationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.ferry;

  app.post(
    '/calls/:id/elicitations/:elicitationId',
    {
      schema: {
        summary: 'Answer a question the server asked during a call',
        description:
          '404 when the call or the question is unknown, or the question was already answered, cancelled or timed out; 4xx with the error envelope when the answer does not fit the form, or carries values for a link question (the question stays open). For a link question (`mode: url`), `accept` says the user opened the link.',
        tags: ['calls'],
        params: ParamsSchema,
        body: ElicitationAnswerSchema,
        response: { 200: ElicitationAnsweredSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const { id, elicitationId } = request.params;
      const call = await calls.get(owner, id);
      if (!call) throw notFound('No such call', { callId: id });
      // Answered where the call runs (another instance in scale mode), with the same verdicts.
      const answered = await calls.answer(call, elicitationId, request.body);
      if (!answered) throw notFound('No open question with this id', { callId: id, elicitationId });
      return { answered: true as const };
    },
  );
};
