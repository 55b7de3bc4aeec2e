// Browsers send requests to Ferry on behalf of any web page the user opens. Two guards keep those
// pages out, which matters most in local mode, where Ferry has no login at all:
// - Cross-site writes: a page elsewhere may POST a "simple" request (text/plain, multipart) with no
//   preflight. Such a request carries Origin (or Sec-Fetch-Site: cross-site) naming another site.
// - DNS rebinding: a page whose name resolves to 127.0.0.1 becomes "same-origin" with Ferry. Its
//   requests carry its own name in Host, so in local mode only exact loopback names are accepted:
//   `localhost`, `[::1]`, a literal IPv4 address in 127.0.0.0/8 (four decimal octets; a name such
//   as `127.attacker.example` or `127.0.0.1.evil.com` is a DNS name an attacker controls), plus
//   the configured host and the public URL's host name.
// Tools and the CLI send neither Origin nor Sec-Fetch-Site, and name Ferry by its address.
import { isIPv4 } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { forbidden } from './api-error.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
// RFC 9110 Host: a bracketed IPv6 literal or a name without colons, then an optional port.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d*)?$/;

export function installOriginGuard(app: FastifyInstance, config: AppConfig): void {
  const allowedHosts = new Set(LOOPBACK_NAMES);
  allowedHosts.add(bracketed(config.server.host.toLowerCase()));
  if (config.server.publicUrl) allowedHosts.add(new URL(config.server.publicUrl).hostname.toLowerCase());

  // A synchronous check: the done callback spares a promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    done(refusal(request, config.auth.mode, allowedHosts));
  });
}

/** Why `request` is refused (403), or undefined when it may go on. */
function refusal(
  request: FastifyRequest,
  mode: AppConfig['auth']['mode'],
  allowedHosts: ReadonlySet<string>,
): Error | undefined {
  const header = request.headers.host;
  if (mode === 'local' && header !== undefined && !isAllowedHost(header, allowedHosts)) {
    return forbidden(
      `Host ${header.slice(0, 100)} is not this Ferry (local mode answers loopback names only)`,
      {
        field: 'host',
      },
    );
  }
  if (SAFE_METHODS.has(request.method)) return undefined;
  if (request.headers['sec-fetch-site'] === 'cross-site') return forbidden('Cross-site requests are refused');
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null' && !sameOrigin(origin, request)) {
    return forbidden(`Requests from ${origin} are refused`, { field: 'origin' });
  }
  if (origin === 'null') return forbidden('Requests from opaque origins are refused', { field: 'origin' });
  return undefined;
}

function isAllowedHost(header: string, allowed: ReadonlySet<string>): boolean {
  const name = HOST_HEADER.exec(header.toLowerCase())?.[1];
  if (name === undefined) return false;
  return allowed.has(name) || (isIPv4(name) && name.startsWith('127.'));
}

/** `::1` as it appears in a Host header: `[::1]`. */
function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function sameOrigin(origin: string, request: FastifyRequest): boolean {
  try {
    return new URL(origin).host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}
