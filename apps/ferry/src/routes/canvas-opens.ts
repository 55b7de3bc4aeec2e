// POST /api/canvas-opens: the web app asks before it frames a tool's v2 canvas (docs/canvas.md).
// A 204 means the URL's origin is allowed for the server now (its `canvasOrigins`, else a remote
// server's own origin) and the open was logged with who opened it (v2 §3: "actions are logged
// server-side with user identity"); the page frames the URL only then. The log line names the
// user, server, call, canvas and origin, never the URL's path or query (a session id may ride
// there) and never a token (the page does not send it).
import { CanvasOpenBodySchema } from '@ferry/contract';
import { canvasOriginsOf, checkCanvasUrl } from '@ferry/host';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { ApiError, forbidden, notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';

export const canvasOpenRoutes: FastifyPluginAsyncZod = async (app) => {
  const { host, config } = app.ferry;
  const publicOrigin = config.server.publicUrl ? new URL(config.server.publicUrl).origin : undefined;

  app.post(
    '/canvas-opens',
    {
      schema: {
        summary: 'Log that the user opens a canvas frame',
        description:
          "Answers 204 when the URL's origin is allowed for the server (the web app frames it only then), 403 when it is not.",
        tags: ['calls'],
        body: CanvasOpenBodySchema,
        response: { 204: z.null().describe('Allowed and logged'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { username } = identityOf(request);
      const { server, canvasId, url, callId } = request.body;
      if (!host.registry.has(server)) throw notFound(`Unknown MCP server "${server}"`, { server });
      const config = host.registry.get(server);
      if (!config.enabled) throw new ApiError('E_CONFLICT', `MCP server "${server}" is disabled`, { server });
      const check = checkCanvasUrl(url, { server, origins: canvasOriginsOf(config) });
      const entry = { user: username, server, callId, canvasId, origin: check.origin };
      // The frame keeps its origin (allow-same-origin): one of Ferry's own could lift its sandbox.
      const reason = !check.allowed
        ? check.reason
        : check.origin === request.headers.origin || check.origin === publicOrigin
          ? `origin ${check.origin} is Ferry's own and is never framed`
          : undefined;
      if (reason !== undefined) {
        request.log.warn(entry, 'canvas frame refused');
        throw forbidden(reason, { server, origin: check.origin });
      }
      request.log.info(entry, 'canvas frame opened');
      return reply.code(204).send(null);
    },
  );
};
