// My Files: list/search, metadata, rename, delete, versions. Upload and download have their own
// files (file-upload.ts, file-content.ts): they stream and need their own parsers and headers.
import {
  DeletedFilesSchema,
  DeleteFileQuerySchema,
  FileDtoSchema,
  FileListQuerySchema,
  FilePageSchema,
  FileVersionsQuerySchema,
  RenameFileBodySchema,
} from '@ferry/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { identityOf } from '../auth/request-context.js';
import { checkSessionId, SESSION_HEADER } from '../auth/sessions.js';
import { toFileDto } from '../files/file-dto.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';
import { trustedSerializerCompiler } from '../http/trusted-json.js';
import { pageOf } from './page-of.js';

export const fileRoutes: FastifyPluginAsyncZod = async (app) => {
  const { files, sessions } = app.ferry;

  app.get(
    '/files',
    {
      // Hot read routes: the 2xx body is toFileDto's, sent as it is (http/trusted-json.ts).
      serializerCompiler: trustedSerializerCompiler,
      schema: {
        summary: 'List and search My Files',
        tags: ['files'],
        querystring: FileListQuerySchema,
        response: {
          200: FilePageSchema,
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
      serializerCompiler: trustedSerializerCompiler,
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
      serializerCompiler: trustedSerializerCompiler,
      schema: {
        summary: 'Every version of the file’s name, newest first',
        description: 'Paged by limit/offset like GET /api/files.',
        tags: ['files'],
        params: IdParamsSchema,
        querystring: FileVersionsQuerySchema,
        response: {
          200: FilePageSchema,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { owner } = identityOf(request);
      const file = await files.stat(owner, { id: request.params.id });
      return pageOf(await files.versions(owner, file.name), request.query, toFileDto);
    },
  );

  app.patch(
    '/files/:id',
    {
      schema: {
        summary: 'Rename a file (every version of its name)',
        tags: ['files'],
        params: IdParamsSchema,
        body: RenameFileBodySchema,
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
        querystring: DeleteFileQuerySchema,
        response: { 200: DeletedFilesSchema, ...errorResponses },
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
