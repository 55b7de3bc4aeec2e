// POST /api/files: uploads stream straight into FileStore.put, never buffered, in two forms:
//   raw body  — the bytes are the file; name from ?name= or X-File-Name, type from Content-Type
//   multipart — every file part is one file (many per request), named by its filename; a part
//               whose name normalizes to nothing fails the request, naming its form field
// The size limit is enforced while streaming (FileStore's E_FILE_TOO_LARGE, partial bytes
// removed); a declared Content-Length over it is refused before a byte is read. A refusal names
// the file's real size: the Content-Length, or, for a part or a chunked body, the rest of the file
// read and counted without being kept (up to MEASURE_PAST_LIMIT_BYTES past the limit; beyond that
// it says "more than"). A multipart request is all or nothing: when one part fails, the parts
// stored before it are deleted again. Bytes that are already the latest version of the name are
// not stored again: the existing version comes back with `unchanged: true`.

import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import {
  FerryError,
  isValidMime,
  mimeEssence,
  UploadedFilesSchema,
  UploadQuerySchema,
} from '@ferry/contract';
import type { PutOptions, PutResult } from '@ferry/storage';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { identityOf, sessionOf } from '../auth/request-context.js';
import { toFileDto } from '../files/file-dto.js';
import { measuredBody } from '../files/measured-body.js';
import { uploadOverQuota, uploadTooLarge } from '../files/upload-errors.js';
import { errorResponses } from '../http/schemas.js';

const FILE_NAME_HEADER = 'x-file-name';

/**
 * How far past the limit a refused file is still read, only to count it: enough to name the real
 * size of the usual near miss, little enough that a client sending gigabytes is not followed.
 */
export const MEASURE_PAST_LIMIT_BYTES = 64 * 1024 * 1024;

export const fileUploadRoutes: FastifyPluginAsyncZod = async (app) => {
  const { files, sessions, config, metrics, drain } = app.ferry;
  /** Each upload in progress, counted until its response is sent or the client goes away. */
  const uploading = new WeakMap<object, () => void>();
  const uploadEnded = (request: object) => {
    uploading.get(request)?.();
    uploading.delete(request);
  };
  // This context parses nothing itself: the handler streams the body (any type, JSON included:
  // a .json upload is a file, not a request document); multipart adds its own parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  await app.register(multipart, {
    // busboy otherwise keeps only what follows the last `/` or `\`: `report.csv/` arrived as ''
    // and was skipped like an empty file input. FileStore's normalizer gets the whole name instead
    // and keeps its last usable segment, or refuses a name that has none.
    preservePath: true,
    limits: { fields: 20, fieldSize: 64 * 1024, headerPairs: 100, parts: 1000 },
  });

  app.post(
    '/files',
    {
      // Refused while draining before a stop; one already running is waited for (ops/drain.ts).
      onRequest: (request, _reply, done) => {
        try {
          drain.refuseNewWork('the upload');
        } catch (error) {
          done(error as Error);
          return;
        }
        uploading.set(request, drain.enter());
        done();
      },
      onResponse: (request, _reply, done) => {
        uploadEnded(request);
        done();
      },
      onRequestAbort: (request, done) => {
        uploadEnded(request);
        done();
      },
      schema: {
        summary: 'Upload files (raw body or multipart/form-data)',
        description:
          'Raw body: the bytes are the file, named by ?name= or the X-File-Name header (percent-encoded UTF-8). Multipart: every file part is stored, named by its filename. Limit: max_file_size_mb per file.',
        tags: ['files'],
        consumes: ['application/octet-stream', 'multipart/form-data'],
        querystring: UploadQuerySchema,
        headers: z.looseObject({ [FILE_NAME_HEADER]: z.string().max(4096).optional() }),
        body: z.unknown().meta({ type: 'string', format: 'binary' }),
        response: { 201: UploadedFilesSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner } = identityOf(request);
      const { query } = request;
      const maxBytes = (await files.flags(owner)).max_file_size_bytes;
      // Opened only once a file is about to be stored: a refused request changes nothing.
      let sessionKey: string | undefined;
      const options: Omit<PutOptions, 'sessionId'> = {
        ...(query.temporary === undefined ? {} : { persist: !query.temporary }),
        ...(query.category === undefined ? {} : { category: query.category }),
        ...(query.description === undefined ? {} : { description: query.description }),
        signal: abortedWith(request),
      };
      /** `knownBytes`: the file's size when the request says it (a raw body's Content-Length). */
      const put = async (name: string, source: Readable, mime: string | undefined, knownBytes?: number) => {
        const measured = measuredBody(source, maxBytes + MEASURE_PAST_LIMIT_BYTES);
        try {
          sessionKey ??= sessionOf(request, reply, sessions).key;
          const record = await files.put(owner, name, measured.body, {
            ...options,
            sessionId: sessionKey,
            ...(mime ? { mime } : {}),
          });
          metrics.uploaded(record.size);
          return record;
        } catch (error) {
          if (error instanceof FerryError && isSizeRefusal(error)) {
            const size =
              knownBytes === undefined
                ? await measured.measure()
                : { exact: true as const, bytes: knownBytes };
            const explained =
              error.code === 'E_FILE_TOO_LARGE'
                ? uploadTooLarge(name, size, maxBytes)
                : uploadOverQuota(error, name, size);
            throw classify(explained, request, reply);
          }
          throw classify(error, request, reply);
        }
      };

      if (!request.isMultipart()) {
        const header = request.headers['content-length'];
        const declared = header === undefined || header === '' ? Number.NaN : Number(header);
        const name = query.name ?? headerName(request.headers[FILE_NAME_HEADER]);
        if (Number.isFinite(declared) && declared > maxBytes) {
          reply.header('connection', 'close');
          throw uploadTooLarge(name, { exact: true, bytes: declared }, maxBytes);
        }
        if (name === undefined) {
          throw new FerryError('E_INVALID_INPUT', `A file name is required: ?name= or ${FILE_NAME_HEADER}`, {
            field: 'name',
          });
        }
        let record: PutResult;
        try {
          record = await put(
            name,
            request.raw,
            claimedType(request.headers['content-type']),
            Number.isFinite(declared) ? declared : undefined,
          );
        } catch (error) {
          // FileStore says `name`, the query parameter; a name sent in the header is said of it.
          throw query.name === undefined ? namingHeader(error) : error;
        }
        reply.code(201);
        request.changedFileIds = [record.id];
        return { files: [toFileDto(record)] };
      }

      const stored: PutResult[] = [];
      try {
        let parts: AsyncIterableIterator<import('@fastify/multipart').Multipart>;
        try {
          // busboy's own cut-off lies past the limit, so a refused part can still be counted
          // (FileStore enforces the limit itself).
          parts = request.parts({
            limits: {
              fileSize: maxBytes + MEASURE_PAST_LIMIT_BYTES,
              files: config.uploads.maxFilesPerRequest,
            },
          });
        } catch (error) {
          throw malformed(error);
        }
        for (;;) {
          let next: IteratorResult<import('@fastify/multipart').Multipart>;
          try {
            next = await parts.next();
          } catch (error) {
            throw hasStatus(error) ? error : malformed(error);
          }
          if (next.done) break;
          const part = next.value;
          if (part.type !== 'file') continue;
          // A form's empty file input sends a part without a name and without bytes.
          if (part.filename === '') {
            if (!(await hasBytes(part.file))) continue;
            reply.header('connection', 'close');
            throw new FerryError(
              'E_INVALID_INPUT',
              `File part ${quoted(part.fieldname)} has bytes but no file name`,
              {
                field: part.fieldname,
                filename: '',
              },
            );
          }
          try {
            stored.push(await put(part.filename, part.file, claimedType(part.mimetype)));
          } catch (error) {
            throw namingPart(error, part.fieldname, part.filename);
          }
        }
      } catch (error) {
        // A file found unchanged was stored before this request: it stays.
        const added = stored.filter((file) => !file.unchanged);
        await Promise.all(added.map((file) => files.delete(owner, file.id).catch(() => undefined)));
        throw error;
      }
      if (stored.length === 0) {
        throw new FerryError('E_INVALID_INPUT', 'The multipart body has no file part', { field: 'file' });
      }
      reply.code(201);
      request.changedFileIds = stored.map((file) => file.id);
      return { files: stored.map(toFileDto) };
    },
  );
};

/**
 * FileStore's own errors (size, quota, name) stand; a body that broke off or did not parse is the
 * client's (400); anything else is ours. When the body was not read to its end, the connection
 * closes after the answer, so a client still sending gigabytes does not keep it busy. A body not
 * read to its end is not by itself the client's fault: the store failing mid-file (S3 gone, a
 * full disk) stops the reading too, and that is ours (5xx), not a malformed upload.
 */
function classify(error: unknown, request: FastifyRequest, reply: FastifyReply): unknown {
  if (!request.raw.complete) reply.header('connection', 'close');
  if (error instanceof FerryError || hasStatus(error)) return error;
  // Only a body that ended early on the client's side: a request read to its end is destroyed too.
  const brokeOff = !request.raw.complete && (request.raw.destroyed || request.raw.errored !== null);
  if (brokeOff || isBodyError(error)) return malformed(error);
  return error;
}

function isSizeRefusal(error: FerryError): boolean {
  return error.code === 'E_FILE_TOO_LARGE' || error.code === 'E_QUOTA_EXCEEDED';
}

/** A refused file name, said of the form field it came in, so the uploader knows which file. */
function namingPart(error: unknown, field: string, filename: string): unknown {
  if (!(error instanceof FerryError) || error.details.field !== 'name') return error;
  return new FerryError(
    error.code,
    `File part ${quoted(field)} (filename ${quoted(filename)}): ${error.message}`,
    {
      ...error.details,
      field,
      filename,
    },
  );
}

/** A refused name that came in X-File-Name, said of that header. */
function namingHeader(error: unknown): unknown {
  if (!(error instanceof FerryError) || error.details.field !== 'name') return error;
  return new FerryError(error.code, `${FILE_NAME_HEADER}: ${error.message}`, {
    ...error.details,
    field: FILE_NAME_HEADER,
  });
}

const quoted = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);

/** Reads until the first byte (then stops: the request fails anyway) or the end of the part. */
async function hasBytes(part: Readable): Promise<boolean> {
  for await (const chunk of part) if ((chunk as Buffer).length > 0) return true;
  return false;
}

function malformed(error: unknown): FerryError {
  const reason = error instanceof Error ? error.message : String(error);
  return new FerryError('E_INVALID_INPUT', `The upload broke off or is malformed: ${reason}`, {
    field: 'body',
  });
}

function hasStatus(error: unknown): boolean {
  const status = (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

// busboy's parse errors and Node's "aborted" are plain Errors; these are their messages.
function isBodyError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /multipart|boundary|part terminated|unexpected end|malformed|aborted/i.test(message);
}

/** Aborts the put when the client goes away mid-upload (FileStore then removes the partial blob). */
function abortedWith(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once('close', () => {
    if (!request.raw.complete) controller.abort(new Error('the client closed the upload'));
  });
  return controller.signal;
}

/** The uploader's claim, if it says anything; FileStore sniffs the bytes anyway. */
function claimedType(header: string | undefined): string | undefined {
  if (header === undefined || !isValidMime(header)) return undefined;
  const essence = mimeEssence(header);
  // curl --data and HTML forms label any body like this; it says nothing about the file.
  return essence === 'application/x-www-form-urlencoded' ? undefined : header;
}

/**
 * X-File-Name is percent-encoded UTF-8 (a header carries Latin-1 at best). Raw UTF-8 bytes, which
 * Node reads as Latin-1, are recovered too; FileStore's normalizer handles everything else.
 */
function headerName(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = bytes.toString('utf8');
  return text.includes('\uFFFD') ? value : text;
}
