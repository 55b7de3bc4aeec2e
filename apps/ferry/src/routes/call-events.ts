// GET /api/calls/:id/events: the call's events as server-sent events, `id:` = the event's seq.
// A client that reconnects (EventSource does so by itself, sending Last-Event-ID; a reloaded page
// passes ?lastEventId=) gets every kept event after that seq, then the live ones. The stream ends
// when the call has settled; a settled call with nothing left to send answers 204, which tells
// EventSource to stop reconnecting.
import { type CallEvent, EventIdSchema, EventStreamQuerySchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { notFound } from '../http/api-error.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';
import { openSseStream } from '../http/sse.js';

export const callEventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.ferry;

  app.get(
    '/calls/:id/events',
    {
      schema: {
        summary: "A call's events (server-sent events)",
        description:
          'Each event: `id: <seq>`, `event: <type>` (started, arguments_prepared, progress, notice, file_stored, file_provider, elicitation, elicitation_answered, finished, failed, cancelled), `data: <CallEvent JSON>`.',
        tags: ['calls'],
        params: IdParamsSchema,
        querystring: EventStreamQuerySchema,
        headers: z.looseObject({ 'last-event-id': EventIdSchema.optional() }),
        response: {
          200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } },
          204: z.null().describe('The call has settled and every event was sent'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const record = calls.get(identityOf(request).owner, request.params.id);
      if (!record) throw notFound('No such call', { callId: request.params.id });
      const after = Number(request.headers['last-event-id'] ?? request.query.lastEventId ?? 0);
      const backlog = calls.eventsAfter(record, after);
      if (record.status !== 'running' && backlog.length === 0) return reply.code(204).send(null);

      const stream = openSseStream(reply);
      const write = (event: CallEvent) => stream.send(event.seq, event.type, event);
      for (const event of backlog) write(event);
      let unsubscribe = () => {};
      stream.onClose(() => unsubscribe());
      unsubscribe = calls.subscribe(record, {
        event: write,
        end: () => {
          unsubscribe();
          stream.end();
        },
      });
    },
  );
};
