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
      const record = await calls.get(identityOf(request).owner, request.params.id);
      if (!record) throw notFound('No such call', { callId: request.params.id });
      const after = Number(request.headers['last-event-id'] ?? request.query.lastEventId ?? 0);
      if (record.status !== 'running' && (await calls.eventsAfter(record.callId, after)).length === 0) {
        return reply.code(204).send(null);
      }

      const stream = openSseStream(reply);
      // follow replays what is kept after `after`, then the live events, then ends: the store
      // keeps the seam between the two without a gap or a repeat.
      let closed = false;
      let unsubscribe = () => {};
      stream.onClose(() => {
        closed = true;
        unsubscribe();
      });
      unsubscribe = await calls.follow(record.callId, after, {
        event: (event: CallEvent) => stream.send(event.seq, event.type, event),
        end: () => {
          closed = true;
          unsubscribe();
          stream.end();
        },
      });
      // The stream may have ended (either side) while follow was being set up.
      if (closed) unsubscribe();
    },
  );
};
