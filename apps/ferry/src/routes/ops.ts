// The operator's endpoints, outside /api and its authentication (docs/operations.md):
//   GET /healthz  alive: 200 as long as the process answers; touches nothing
//   GET /readyz   ready for traffic: every readiness check (ops/readiness.ts) passes; else 503
//   GET /metrics  Prometheus text (ops/metrics.ts), for metrics.allowFrom or the metrics token
// A load balancer needs only the status codes, so /readyz names a failed check to anyone but gives
// its reason (a database address, a path) only to whoever may read the metrics. While the app
// closes, Fastify itself answers every request, these included, with 503 (return503OnClosing).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { forbidden } from '../http/api-error.js';
import { createOpsAccess } from '../ops/ops-access.js';

export const opsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { metrics, readiness, config, redact } = app.ferry;
  const access = createOpsAccess(config.metrics, config.auth);

  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const report = await readiness.run();
    const detailed = access.allows(request);
    const checks = Object.fromEntries(
      Object.entries(report.checks).map(([name, result]) => [
        name,
        result.ok || detailed ? result : { ok: false, ms: result.ms, error: 'failed' },
      ]),
    );
    reply.code(report.ready ? 200 : 503);
    return redact({ status: report.ready ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!access.allows(request)) {
      throw forbidden(
        'GET /metrics is served to the addresses of metrics.allowFrom (direct requests only) or with the metrics token',
      );
    }
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
};
