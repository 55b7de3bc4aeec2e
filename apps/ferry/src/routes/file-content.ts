// GET /api/files/:id/content: the bytes, with Range (206/416), ETag and safe headers
// (files/content-headers.ts). Two ways in: the signed-in user, or a signed download token
// (`?token=`, what a tool in `url` file mode gets): bound to one owner, one file and a few
// minutes, checked in constant time by the FileStore. No user and no token: 401; a token that is
// tampered with, expired, for another file or (when a user is signed in too) another user: 403.

import type { Readable } from 'node:stream';
import { FerryError, FileContentQuerySchema } from '@ferry/contract';
import type { TokenFailureReason } from '@ferry/storage';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf } from '../auth/request-context.js';
import { contentDisposition, isInlineSafe, parseRange, safeContentType } from '../files/content-headers.js';
import { createSmallContentCache } from '../files/small-content-cache.js';
import { forbidden } from '../http/api-error.js';
import { errorResponses, IdParamsSchema } from '../http/schemas.js';

const TOKEN_FAILURES: Record<TokenFailureReason, string> = {
  malformed: 'is malformed',
  bad_signature: 'has been tampered with',
  expired: 'has expired',
  wrong_file: 'is for another file',
  wrong_owner: 'belongs to another user',
  unknown_key: 'was signed with an unknown key',
};

const Binary = z.string().meta({ format: 'binary' });

export const fileContentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { files, metrics } = app.ferry;
  // Bytes served (ferry_download_bytes_total): a response sent to its end, by its Content-Length;
  // a download broken off is not counted.
  app.addHook('onResponse', (_request, reply, done) => {
    if (reply.statusCode === 200 || reply.statusCode === 206) {
      const length = Number(reply.getHeader('content-length'));
      if (reply.raw.writableFinished && Number.isSafeInteger(length)) metrics.downloaded(length);
    }
    done();
  });
  // Small files (the common download) are answered from memory after their first read; the row is
  // still read for every request, so auth, deletion and expiry hold as before.
  const small = createSmallContentCache();

  app.get(
    '/files/:id/content',
    {
      config: { auth: 'token' },
      schema: {
        summary: "Download a file's bytes",
        description:
          'Range requests (one range) answer 206; a range past the end 416. Inline only for images (not SVG), PDF, plain text and audio; everything else is an attachment.',
        tags: ['files'],
        params: IdParamsSchema,
        querystring: FileContentQuerySchema,
        headers: z.looseObject({
          range: z.string().max(256).optional(),
          'if-range': z.string().max(256).optional(),
          'if-none-match': z.string().max(1024).optional(),
        }),
        response: {
          200: { description: 'The whole file', content: { 'application/octet-stream': { schema: Binary } } },
          206: {
            description: 'The range asked for',
            content: { 'application/octet-stream': { schema: Binary } },
          },
          304: z.null().describe('Not modified (If-None-Match)'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { token, download } = request.query;
      let owner: string;
      if (token !== undefined) {
        const expected = request.identity ? { fileId: id, owner: request.identity.owner } : { fileId: id };
        const verdict = files.verifyDownload(token, expected);
        if (!verdict.ok) {
          throw forbidden(`The download link ${TOKEN_FAILURES[verdict.reason]}`, { reason: verdict.reason });
        }
        owner = verdict.owner;
      } else {
        owner = identityOf(request).owner;
      }

      const file = await files.stat(owner, { id });
      const etag = `"${file.sha256}"`;
      reply
        .header('etag', etag)
        .header('last-modified', file.createdAt.toUTCString())
        .header('accept-ranges', 'bytes')
        .header('cache-control', token === undefined ? 'private, no-cache' : 'private, no-store');
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send(null);

      const ifRange = request.headers['if-range'];
      const range =
        ifRange !== undefined && ifRange !== etag
          ? { kind: 'full' as const }
          : parseRange(request.headers.range, file.size);
      if (range.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${file.size}`);
        throw new FerryError(
          'E_RANGE_NOT_SATISFIABLE',
          `Range not satisfiable: the file has ${file.size} bytes`,
          {
            size: file.size,
          },
        );
      }

      const inline = !download && isInlineSafe(file.mime);
      reply
        .type(safeContentType(file.mime))
        .header('content-disposition', contentDisposition(inline ? 'inline' : 'attachment', file.name));
      // Even if a browser were talked into rendering something, nothing in it may run here. The
      // PDF viewer is left alone: browsers refuse to show a sandboxed PDF.
      if (file.mime !== 'application/pdf')
        reply.header('content-security-policy', "sandbox; default-src 'none'");

      if (file.size <= small.maxEntryBytes) {
        const bytes = await small.bytesOf(file, async () => (await files.get(owner, { id })).stream);
        if (range.kind === 'partial') {
          reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
          return reply.send(unserialized(bytes.subarray(range.start, range.end + 1)));
        }
        return reply.code(200).send(unserialized(bytes));
      }
      if (range.kind === 'partial') {
        const content = await files.get(owner, { id }, { range: { start: range.start, end: range.end } });
        reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
          .header('content-length', String(range.end - range.start + 1));
        return reply.send(streamed(content.stream));
      }
      const content = await files.get(owner, { id });
      reply.code(200).header('content-length', String(file.size));
      return reply.send(streamed(content.stream));
    },
  );
};

/** A stream body: fastify pipes it unserialized; the response schema only documents the bytes. */
function streamed(stream: Readable): never {
  return stream as never;
}

/** A Buffer body: fastify sends it as it is, with its Content-Length, unserialized like a stream. */
function unserialized(bytes: Buffer): never {
  return bytes as never;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
