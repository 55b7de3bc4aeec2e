// MCP Apps views (SEP-1865) for the web app's canvas: GET /api/servers/:server/ui-resource?uri=
// answers the `ui://` view one of the server's tools declares, read over the user's own
// connection (packages/host servers/ui-resources.ts: declared URIs only, the MCP Apps type
// only, 5 MiB at most, cached per server version). The HTML is the server's: the web app renders
// it in its sandbox, never on Ferry's origin.
import { FerryError, UiResourceQuerySchema, UiResourceSchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { ApiError, notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';

export const uiResourceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { host, redact } = app.ferry;

  app.get(
    '/servers/:server/ui-resource',
    {
      schema: {
        summary: "An MCP Apps view (ui:// resource) one of the server's tools declares",
        tags: ['tools'],
        params: z.object({ server: z.string().min(1).max(63) }),
        querystring: UiResourceQuerySchema,
        response: { 200: UiResourceSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { username } = identityOf(request);
      const { server } = request.params;
      const { uri } = request.query;
      if (!host.registry.has(server)) throw notFound(`Unknown MCP server "${server}"`, { server });
      if (!host.registry.get(server).enabled) {
        throw new ApiError('E_CONFLICT', `MCP server "${server}" is disabled`, { server });
      }
      if (!host.readUiResource) throw notFound('MCP Apps views are not served by this host', { server });
      // No abort when the client goes away: readers of one view share one read (and its
      // cache entry); the connection's own 60 s clock bounds it.
      try {
        return await host.readUiResource(server, username, uri);
      } catch (error) {
        if (error instanceof FerryError && error.code !== 'E_INTERNAL') throw error;
        // The server refused or failed the read (an MCP error): its first line, paths redacted.
        const reason = redact(String((error as Error)?.message ?? error).split('\n', 1)[0]);
        request.log.warn({ err: error, server, uri }, 'reading an MCP Apps view failed');
        throw new FerryError('E_TOOL_ERROR', `MCP server "${server}" could not read the view: ${reason}`, {
          server,
          uri,
        });
      }
    },
  );
};
