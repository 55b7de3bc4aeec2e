// My Files: list/search, metadata, rename, delete, versions. Upload and download have their own
// files (file-upload.ts, file-content.ts): they stream and need their own parsers and headers.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { checkSessionId, SESSION_HEADER } from '../auth/sessions.js';
import { FileDtoSchema, toFileDto } from '../files/file-dto.js';
import { errorResponses, IdParamsSchema, pageSchema, pagingFields, QueryBoolean } from '../http/schemas.js';

const ListQuerySchema = z.object({
  q: z.string().max(255).optional().describe('Case-insensitive substring of the name'),
  source: z.enum(['uploaded', 'generated', 'deferred']).optional(),
  sort: z.enum(['name', 'created', 'size']).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
  ...pagingFields(100, 1000),
  allVersions: QueryBoolean.optional().describe('Every version instead of the latest of each name'),
  session: z.literal('current').optional().describe('Only files stored in the X-Ferry-Session session'),
});

// Strict, unlike the older list query above: an unknown parameter is a 400, not an unpaged answer.
const VersionsQuerySchema = z.strictObject(pagingFields(100, 1000));

export const fileRoutes: FastifyPluginAsyncZod = async (app) => {
  const { files, sessions } = app.ferry;

  app.get(
    '/files',
    {
      schema: {
        summary: 'List and search My Files',
        tags: ['files'],
        querystring: ListQuerySchema,
        response: {
          200: pageSchema(FileDtoSchema),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const identity = identityOf(request);
      const { owner } = identity;
      const { q, source, sort, order, limit, offset, allVersions, session } = request.query;
      let sessionId: string | undefined;
      if (session === 'current') {
        const id = checkSessionId(request.headers[SESSION_HEADER]);
        // No session yet means no files in it; an impossible key matches nothing.
        sessionId = id === undefined ? `${owner}:` : sessions.open(identity, id).key;
      }
      const result = await files.list(owner, {
        sort,
        order,
        limit,
        offset,
        ...(q === undefined || q === '' ? {} : { query: q }),
        ...(source === undefined ? {} : { source }),
        ...(allVersions === undefined ? {} : { allVersions }),
        ...(sessionId === undefined ? {} : { sessionId }),
      });
      return { items: result.items.map(toFileDto), total: result.total, limit, offset };
    },
  );

  app.get(
    '/files/:id',
    {
      schema: {
        summary: "A file's metadata",
        tags: ['files'],
        params: IdParamsSchema,
        response: { 200: FileDtoSchema, ...errorResponses },
      },
    },
    async (request) => toFileDto(await files.stat(identityOf(request).owner, { id: request.params.id })),
  );

  app.get(
    '/files/:id/versions',
    {
      schema: {
        summary: 'Every version of the file’s name, newest first',
        description: 'Paged by limit/offset like GET /api/files.',
        tags: ['files'],
        params: IdParamsSchema,
        querystring: VersionsQuerySchema,
        response: {
          200: pageSchema(FileDtoSchema),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const { limit, offset } = request.query;
      const file = await files.stat(owner, { id: request.params.id });
      const versions = await files.versions(owner, file.name);
      return {
        items: versions.slice(offset, offset + limit).map(toFileDto),
        total: versions.length,
        limit,
        offset,
      };
    },
  );

  app.patch(
    '/files/:id',
    {
      schema: {
        summary: 'Rename a file (every version of its name)',
        tags: ['files'],
        params: IdParamsSchema,
        body: z.object({ name: z.string().min(1).max(1024) }),
        response: { 200: FileDtoSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      return toFileDto(await files.rename(owner, request.params.id, request.body.name));
    },
  );

  app.delete(
    '/files/:id',
    {
      schema: {
        summary: 'Delete a file version (or, with allVersions=true, every version of its name)',
        tags: ['files'],
        params: IdParamsSchema,
        querystring: z.object({ allVersions: QueryBoolean.optional() }),
        response: { 200: z.object({ deleted: z.number().int() }), ...errorResponses },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const { id } = request.params;
      if (request.query.allVersions) {
        const file = await files.stat(owner, { id });
        return { deleted: await files.deleteAllVersions(owner, file.name) };
      }
      await files.delete(owner, id);
      return { deleted: 1 };
    },
  );
};
