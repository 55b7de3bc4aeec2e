// Per-user rate limits (issue 22, scale mode): @fastify/rate-limit, keyed by the authenticated
// user, with three limits from the config's `rateLimit` section: call starts (POST /api/calls),
// uploads (POST /api/files), and every other /api request. Counters live in Redis when the
// instances share state, so N instances enforce one limit and not N, and in the plugin's memory
// store otherwise. A request over a limit is answered by the app's error handler like any other
// failure: 429 E_RATE_LIMITED, retryable, with Retry-After (the plugin sets it before it throws).
//
// Where it runs: the plugin adds its check to each route as a route-level `onRequest` hook, and
// Fastify runs route-level hooks after the context's own hooks of the same kind
// (docs/Reference/Hooks.md, "Route level hooks"), so after installAuth's onRequest has named the
// user, and before the body is read: an upload over its limit is refused without taking its bytes.
// Requests without a user (a tool's download with a signed token, routes with `auth: 'none'`) are
// not counted: the ones that need a user were already refused with 401.
import rateLimit, {
  type errorResponseBuilderContext,
  type RateLimitOptions,
  type RateLimitPluginOptions,
} from '@fastify/rate-limit';
import { FerryError } from '@ferry/contract';
import type { FastifyInstance } from 'fastify';
import type { RateLimitConfig, RedisConfig } from '../config/app-config.js';

/** The limits of the `rateLimit` section, by name; `api` covers what the others do not. */
type RateLimitName = 'callStarts' | 'uploads' | 'api';

/** Routes with a limit of their own (method + full path, as Fastify's onRoute sees them). */
const ROUTE_LIMITS: Readonly<Record<string, Exclude<RateLimitName, 'api'>>> = {
  'POST /api/calls': 'callStarts',
  'POST /api/files': 'uploads',
};

const LIMIT_WORDS: Record<RateLimitName, string> = {
  callStarts: 'tool calls started',
  uploads: 'uploads',
  api: 'requests',
};

export interface RegisterRateLimitOptions {
  config: RateLimitConfig;
  /**
   * Scale mode: counters in this Redis, under `<prefix>rate-limit:`, over a connection of their
   * own (named `ferry:<instanceId>:rate-limit`), closed with the app. Absent: in memory.
   */
  redis?: { config: RedisConfig; instanceId: string };
}

/**
 * Registers the limits on `api` (the /api context, after installAuth and before its routes):
 * nothing when `config.enabled` is false. Must be awaited before the routes are registered, as
 * the plugin attaches itself to routes as they are added (an onRoute hook).
 */
export async function registerRateLimit(
  api: FastifyInstance,
  options: RegisterRateLimitOptions,
): Promise<void> {
  const { config } = options;
  if (!config.enabled) return;
  // Before the plugin's own onRoute hook (hooks run in the order added): the routes with a limit
  // of their own get it as `config.rateLimit`, which the plugin reads there.
  api.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = methods.map((method) => ROUTE_LIMITS[`${method} ${route.url}`]).find(Boolean);
    if (name) route.config = { ...route.config, rateLimit: limitOptions(config, name) };
  });
  const exempt = new Set(config.exemptUsers);
  const pluginOptions: RateLimitPluginOptions = {
    ...limitOptions(config, 'api'),
    global: true,
    hook: 'onRequest',
    // The username, not the owner id: the same on every instance without a catalog read, and what
    // an operator sees in the logs.
    keyGenerator: (request) => `user:${request.identity?.username ?? ''}`,
    allowList: (request) => !request.identity || exempt.has(request.identity.username),
    // A limiter is a fairness guard, not access control: when Redis fails, the calls and events
    // that need it fail loudly on their own; turning each request into a 500 as well would make
    // a Redis blip an outage of every download.
    skipOnError: true,
    onExceeded: (request, key) =>
      request.log.info({ rateLimitKey: key, route: request.routeOptions.url }, 'rate limit exceeded'),
  };
  if (options.redis) {
    // Imported only in scale mode: the embedded start never loads ioredis.
    const { closeRedisConnection, openRedisConnection } = await import('../shared/redis-connection.js');
    const client = await openRedisConnection({
      url: options.redis.config.url,
      role: 'commands',
      name: `ferry:${options.redis.instanceId}:rate-limit`,
      onError: (error) => api.log.warn({ err: error }, 'rate-limit Redis connection'),
    });
    // While Redis is away, a count fails at once (and skipOnError lets the request through)
    // rather than waiting in ioredis's offline queue, holding every request until it is back.
    client.options.enableOfflineQueue = false;
    api.addHook('onClose', async () => closeRedisConnection(client));
    pluginOptions.redis = client;
    pluginOptions.nameSpace = `${options.redis.config.prefix}rate-limit:`;
  }
  await api.register(rateLimit, pluginOptions);
}

/** One limit's numbers, and a refusal that names it. */
function limitOptions(config: RateLimitConfig, name: RateLimitName): RateLimitOptions {
  const { max, windowSeconds } = config[name];
  return {
    max,
    timeWindow: windowSeconds * 1000,
    errorResponseBuilder: (_request, context) => rateLimitedError(name, context, windowSeconds),
  };
}

function rateLimitedError(
  name: RateLimitName,
  context: errorResponseBuilderContext,
  windowSeconds: number,
): FerryError {
  const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
  return new FerryError(
    'E_RATE_LIMITED',
    `Too many ${LIMIT_WORDS[name]}: at most ${context.max} in ${windowSeconds} s; retry in ${context.after}`,
    {
      limit: `rateLimit.${name}`,
      max: context.max,
      window_seconds: windowSeconds,
      retry_after_seconds: retryAfter,
    },
  );
}
