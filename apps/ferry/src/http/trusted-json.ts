// A route option for hot read routes whose 2xx body Ferry builds itself from its own catalog rows
// (toFileDto): the body is sent with JSON.stringify instead of being re-parsed by the zod response
// schema first. On a 50-file listing that parse was about a tenth of the request's CPU time. The
// schema stays on the route: it still documents the response in the OpenAPI document, and error
// bodies (4xx/5xx) still go through the zod serializer. What the schema did on the way out (drop
// fields it does not know) the builder does instead: toFileDto writes exactly the schema's fields,
// in the schema's order, so the bytes are the same (tested in test/http/trusted-json.test.ts).
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';

export const trustedSerializerCompiler: FastifySerializerCompiler<unknown> = (routeSchema) => {
  if (String(routeSchema.httpStatus).startsWith('2')) return (data: unknown) => JSON.stringify(data);
  return serializerCompiler(routeSchema as Parameters<typeof serializerCompiler>[0]);
};
