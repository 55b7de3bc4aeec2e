// GET /api/calls/:id/events: the call's events as server-sent events, `id:` = the event's seq.
// A client that reconnects (EventSource does so by itself, sending Last-Event-ID; a reloaded page
// passes ?lastEventId=) gets every kept event after that seq, then the live ones. The stream ends
// when the call has settled; a settled call with nothing left to send answers 204, which tells
// EventSource to stop reconnecting.
import type { CallEvent } from '@ferry/host';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { notFound } from '../http/api-error.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';

const HEARTBEAT_MS = 15_000;
const Seq = z.string().regex(/^\d{1,15}$/, 'must be an event id (a non-negative integer)');

export const callEventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls } = app.ferry;

  app.get(
    '/calls/:id/events',
    {
      schema: {
        summary: "A call's events (server-sent events)",
        description:
          'Each event: `id: <seq>`, `event: <type>` (started, arguments_prepared, progress, notice, file_stored, elicitation, finished, failed, cancelled), `data: <CallEvent JSON>`.',
        tags: ['calls'],
        params: IdParamsSchema,
        querystring: z.object({ lastEventId: Seq.optional() }),
        headers: z.looseObject({ 'last-event-id': Seq.optional() }),
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

      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      out.write('retry: 2000\n\n');
      const write = (event: CallEvent) => {
        // JSON.stringify escapes newlines, so a message can never end the event early.
        out.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      };
      for (const event of backlog) write(event);

      const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      let unsubscribe = () => {};
      const stop = () => {
        clearInterval(heartbeat);
        unsubscribe();
      };
      out.on('close', stop);
      unsubscribe = calls.subscribe(record, {
        event: write,
        end: () => {
          stop();
          out.end();
        },
      });
    },
  );
};
