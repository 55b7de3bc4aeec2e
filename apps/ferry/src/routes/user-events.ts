// GET /api/events: the signed-in user's own event stream (server-sent events): `event: call` with
// each event of any of their calls, `event: files_changed` when My Files changed (upload, rename,
// delete, a file stored by a tool). Reconnecting with Last-Event-ID replays what is still kept.
// A successful change to /api/files is announced here by an onResponse hook, so no file route
// has to remember to.

import { EventIdSchema, EventStreamQuerySchema } from '@ferry/contract';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import type { UserEvent, UserEventBody } from '../events/user-events.js';
import { errorResponses } from '../http/schemas.js';
import { openSseStream, type SseStream } from '../http/sse.js';

const FILE_CHANGES: Record<string, UserEventBody & { type: 'files_changed' }> = {
  'POST /api/files': { type: 'files_changed', reason: 'uploaded', fileIds: [] },
  'PATCH /api/files/:id': { type: 'files_changed', reason: 'renamed', fileIds: [] },
  'DELETE /api/files/:id': { type: 'files_changed', reason: 'deleted', fileIds: [] },
};

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a route that changed files the path does not name (an upload's new file ids). */
    changedFileIds?: string[];
  }
}

/** On the /api context itself (hooks of a route plugin would only see that plugin's routes). */
export function announceFileChanges(api: FastifyInstance): void {
  api.addHook('onResponse', (request, reply, done) => {
    const change =
      reply.statusCode < 300 ? FILE_CHANGES[`${request.method} ${request.routeOptions.url}`] : undefined;
    if (change !== undefined) {
      const id = (request.params as { id?: string } | undefined)?.id;
      // The files an upload stored (the route names them), else the file of the path.
      const fileIds = request.changedFileIds ?? (id ? [id] : []);
      // Fire and forget: publish never rejects (a shared store logs its own failures).
      void api.ferry.userEvents.publish(identityOf(request).owner, { ...change, fileIds });
    }
    done();
  });
}

export const userEventRoutes: FastifyPluginAsyncZod = async (app) => {
  const { userEvents } = app.ferry;

  app.get(
    '/events',
    {
      schema: {
        summary: "The user's event stream (server-sent events)",
        description:
          '`event: call` (data: {type:"call", event: CallEvent}) for every event of any of the user\'s calls; `event: files_changed` (data: {type, reason: uploaded|stored|renamed|deleted, fileIds}) when My Files changed. `id:` grows per user; Last-Event-ID (or ?lastEventId=) replays the kept backlog.',
        tags: ['session'],
        querystring: EventStreamQuerySchema,
        headers: z.looseObject({ 'last-event-id': EventIdSchema.optional() }),
        response: {
          200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { owner } = identityOf(request);
      const from = request.headers['last-event-id'] ?? request.query.lastEventId;
      // Following before the headers go out: a client that has them hears whatever happens from
      // then on (with Redis, subscribing takes a round trip), and a failure is an error response.
      // A new stream starts live; a reconnect catches up on what it missed. follow keeps the seam
      // between the two without a gap or a repeat; what it replays comes before the stream opens.
      let closed = false;
      let unfollow = () => {};
      reply.raw.once('close', () => {
        closed = true;
        unfollow();
      });
      let stream: SseStream | undefined;
      const early: UserEvent[] = [];
      unfollow = await userEvents.follow(owner, from === undefined ? undefined : Number(from), (event) => {
        if (stream) stream.send(event.id, event.type, event);
        else early.push(event);
      });
      // The client left while follow was being set up.
      if (closed) {
        unfollow();
        return reply.hijack();
      }
      stream = openSseStream(reply);
      for (const event of early) stream.send(event.id, event.type, event);
    },
  );
};
