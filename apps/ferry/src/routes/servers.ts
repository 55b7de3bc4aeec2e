// The configured MCP servers and their tools. Only what a client needs is shown: never a
// server's command, environment, URL or headers (they may hold secrets and host paths).
import { FerryError, readToolUi, ServerListSchema, ToolListSchema } from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { ApiError, notFound } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';
import { describeInjected } from '../tools/injected-params.js';

export const serverRoutes: FastifyPluginAsyncZod = async (app) => {
  const { host, redact } = app.ferry;

  app.get(
    '/servers',
    {
      schema: {
        summary: 'The configured MCP servers',
        tags: ['tools'],
        response: { 200: ServerListSchema, ...errorResponses },
      },
    },
    async () => ({
      items: host.registry.list().map((server) => ({
        name: server.name,
        transport: server.transport,
        enabled: server.enabled,
        fileMode: server.fileMode,
        timeouts: {
          noticeSeconds: [...server.timeouts.noticeSeconds],
          timeoutSeconds: server.timeouts.timeoutSeconds,
          hardCapSeconds: server.timeouts.hardCapSeconds,
        },
      })),
    }),
  );

  app.get(
    '/servers/:server/tools',
    {
      schema: {
        summary: "A server's tools, injected parameters marked",
        tags: ['tools'],
        params: z.object({ server: z.string().min(1).max(63) }),
        response: { 200: ToolListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { username } = identityOf(request);
      const { server } = request.params;
      if (!host.registry.has(server)) throw notFound(`Unknown MCP server "${server}"`, { server });
      if (!host.registry.get(server).enabled) {
        throw new ApiError('E_CONFLICT', `MCP server "${server}" is disabled`, { server });
      }
      let tools: Awaited<ReturnType<typeof host.listTools>>;
      try {
        tools = await host.listTools(server, username);
      } catch (error) {
        if (error instanceof FerryError && error.code !== 'E_INTERNAL') throw error;
        // The first line only: the rest is the server's stderr, which is for the logs.
        const reason = redact(String((error as Error).message ?? error).split('\n', 1)[0]);
        request.log.warn({ err: error, server }, 'listing tools failed');
        throw new ApiError('E_TOOL_UNAVAILABLE', `MCP server "${server}" is unavailable: ${reason}`, {
          server,
        });
      }
      return {
        server,
        items: tools.map((tool) => {
          const described = describeInjected(tool.inputSchema);
          const ui = readToolUi(tool._meta);
          return {
            name: tool.name,
            ...(tool.title === undefined ? {} : { title: tool.title }),
            ...(tool.description === undefined ? {} : { description: tool.description }),
            inputSchema: described.inputSchema,
            ...(tool.annotations === undefined ? {} : { annotations: { ...tool.annotations } }),
            injected: described.injected,
            fileInputs: described.fileInputs,
            ...(ui === undefined ? {} : { ui }),
          };
        }),
      };
    },
  );
};
