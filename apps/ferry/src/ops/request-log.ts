// Every log line of an /api request carries, besides Fastify's request id (`reqId`), the user once
// authentication has named them and the call id of the /api/calls/{id}/… routes, so one grep finds
// a user's or a call's lines, "request completed" included. Installed on the /api context after
// installAuth: preHandler runs once the auth hook and the params' validation are done.
//
// The fields are added when a line is written (the logger's mixin), not by a child logger per
// request: at the default level (warn) almost no request writes a line, and a pino child per
// request cost ~20 µs of a 4 KiB download's ~80 µs (measured with bench/api-throughput.ts).
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

/** The bindings of each request's logger (Fastify's per-request child, also `reply.log`). */
const bindingsOf = new WeakMap<object, Record<string, string>>();

export function installRequestLogBindings(api: FastifyInstance): void {
  api.addHook('preHandler', (request, _reply, done) => {
    const user = request.identity?.username;
    const id = (request.params as { id?: unknown } | undefined)?.id;
    const callId =
      typeof id === 'string' && request.routeOptions.url?.startsWith('/api/calls/:id') ? id : undefined;
    if (user !== undefined || callId !== undefined) {
      bindingsOf.set(request.log, {
        ...(user !== undefined && { user }),
        ...(callId !== undefined && { callId }),
      });
    }
    done();
  });
}

/** pino's `mixin`: the writing logger's request bindings, if any. */
function requestLogMixin(_merge: object, _level: number, logger: unknown): object {
  return (typeof logger === 'object' && logger !== null && bindingsOf.get(logger)) || {};
}

/** The app's logger options with the request bindings added to every line it writes. */
export function withRequestLogBindings(
  logger: FastifyServerOptions['logger'] | undefined,
): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  if (logger === true) return { mixin: requestLogMixin };
  return { ...logger, mixin: requestLogMixin };
}
