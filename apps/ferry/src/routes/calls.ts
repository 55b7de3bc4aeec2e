// Tool calls without a model: start (the answer comes at once, the call runs on), follow its
// events (routes/call-events.ts), cancel it, fetch its outcome later, also in the form of tool
// contract v2.1 with files inline or referenced (calls/v21-form.ts).
import {
  CallDetailQuerySchema,
  CallDetailSchema,
  CallHandleSchema,
  CallListQuerySchema,
  CallPageSchema,
  CallV21FormSchema,
  StartCallBodySchema,
} from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf, sessionOf } from '../auth/request-context.js';
import { toCallSummary } from '../calls/call-schemas.js';
import { v21FormStream } from '../calls/v21-form.js';
import { ApiError, notFound } from '../http/api-error.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';
import { pageOf } from './page-of.js';

export const callRoutes: FastifyPluginAsyncZod = async (app) => {
  const { calls, files, host, sessions, drain } = app.ferry;

  app.post(
    '/calls',
    {
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        summary: 'Start a tool call',
        description:
          'Answers 202 with the call id at once; the call runs in the background. Follow it at /api/calls/{id}/events.',
        tags: ['calls'],
        body: StartCallBodySchema,
        response: { 202: CallHandleSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, username } = identityOf(request);
      const { server, tool, fileInputs } = request.body;
      if (!host.registry.has(server)) throw notFound(`Unknown MCP server "${server}"`, { server });
      if (!host.registry.get(server).enabled) {
        throw new ApiError('E_CONFLICT', `MCP server "${server}" is disabled`, { server });
      }
      drain.refuseNewWork('the tool call');
      const session = sessionOf(request, reply, sessions);
      const record = await calls.start({
        owner,
        username,
        sessionKey: session.key,
        server,
        tool,
        arguments: request.body.arguments,
        ...(fileInputs === undefined ? {} : { fileInputs }),
      });
      reply.code(202).header('location', `/api/calls/${record.callId}`);
      return { callId: record.callId, status: record.status };
    },
  );

  app.get(
    '/calls',
    {
      schema: {
        summary: "The user's recent calls, newest first",
        description: 'Paged by limit/offset like GET /api/files; total counts every kept call.',
        tags: ['calls'],
        querystring: CallListQuerySchema,
        response: {
          200: CallPageSchema,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const all = (await calls.list(owner)).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
      return pageOf(all, request.query, toCallSummary);
    },
  );

  app.get(
    '/calls/:id',
    {
      schema: {
        summary: 'A call and, once settled, its outcome',
        description:
          'With form=v2.1 (a settled call only, else 409): the outcome as a tool contract v2.1 output, artifacts processed as §6.2 says: `b64` up to base64_size_limit_mb, an `s3_ref` (file id, version, download path) above it. Streamed (chunked), files read and encoded as they are sent.',
        tags: ['calls'],
        params: IdParamsSchema,
        querystring: CallDetailQuerySchema,
        response: {
          200: {
            description: 'The call (default), or its v2.1 form',
            content: { 'application/json': { schema: z.union([CallDetailSchema, CallV21FormSchema]) } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { owner } = identityOf(request);
      const record = await calls.get(owner, request.params.id);
      if (!record) throw notFound('No such call', { callId: request.params.id });
      if (request.query.form === undefined)
        return { ...toCallSummary(record), response: record.response ?? null };
      if (!record.response) {
        throw new ApiError(
          'E_CONFLICT',
          'The call is still running: its v2.1 form exists once it has settled',
          {
            callId: record.callId,
            status: record.status,
          },
        );
      }
      const body = await v21FormStream({
        response: record.response,
        files,
        owner,
        base64LimitBytes: (await files.flags(owner)).base64_size_limit_bytes,
        contentPath: (id) => `/api/files/${id}/content`,
      });
      // A stream: Fastify pipes it without the response schema's serializer (which the type
      // provider cannot express, hence the cast, as in file-content.ts).
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(body as never);
    },
  );

  app.delete(
    '/calls/:id',
    {
      schema: {
        summary: 'Cancel a running call',
        description:
          '202 when the call was asked to stop (it settles as cancelled); 200 when it had already settled.',
        tags: ['calls'],
        params: IdParamsSchema,
        response: {
          200: CallHandleSchema,
          202: CallHandleSchema,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { owner } = identityOf(request);
      const record = await calls.get(owner, request.params.id);
      if (!record) throw notFound('No such call', { callId: request.params.id });
      if (await calls.cancel(record)) {
        reply.code(202);
        return { callId: record.callId, status: record.status };
      }
      // Already settled, perhaps since the read above: answer with the status it settled with.
      const settled = (await calls.get(owner, record.callId)) ?? record;
      reply.code(200);
      return { callId: settled.callId, status: settled.status };
    },
  );
};
