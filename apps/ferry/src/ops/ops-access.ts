// Who may read GET /metrics (and the reasons /readyz gives for a failed check): an operator, not
// the public. Either the bearer token of `metrics.token`, compared as SHA-256 digests in constant
// time, or a direct request from an address in `metrics.allowFrom` (loopback by default). A
// request that a proxy forwarded is never "direct", whatever its peer address: behind a reverse
// proxy on the same machine every outside request arrives from 127.0.0.1, and the proxy marks it
// (Forwarded, X-Forwarded-For, X-Real-IP, or proxy mode's secret and user headers).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isTrusted, sha256, trustedPeers } from '../auth/authenticate.js';
import type { AuthConfig, MetricsConfig } from '../config/app-config.js';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

export interface OpsAccess {
  /** Whether the request may read metrics and readiness details. */
  allows(request: FastifyRequest): boolean;
}

export function createOpsAccess(metrics: MetricsConfig, auth: AuthConfig): OpsAccess {
  const allowed = trustedPeers(metrics.allowFrom);
  const token = metrics.token === undefined ? undefined : sha256(metrics.token);
  const proxyHeaders = auth.mode === 'proxy' ? [auth.proxySecretHeader, auth.header] : [];
  const forwarded = (request: FastifyRequest) =>
    [...FORWARDING_HEADERS, ...proxyHeaders].some((name) => request.headers[name] !== undefined);
  const bearer = (request: FastifyRequest): boolean => {
    if (!token) return false;
    const header = request.headers.authorization;
    const sent = typeof header === 'string' ? /^Bearer +(\S+)$/i.exec(header)?.[1] : undefined;
    return sent !== undefined && timingSafeEqual(token, sha256(sent));
  };
  return {
    allows: (request) => {
      if (bearer(request)) return true;
      const peer = request.socket?.remoteAddress;
      return peer !== undefined && !forwarded(request) && isTrusted(allowed, peer);
    },
  };
}
