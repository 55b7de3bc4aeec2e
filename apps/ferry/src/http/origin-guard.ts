// Browsers send requests to Ferry on behalf of any web page the user opens. Two guards keep those
// pages out, which matters most in local mode, where Ferry has no login at all:
// - Cross-site writes: a page elsewhere may POST a "simple" request (text/plain, multipart) with no
//   preflight. Such a request carries Origin (or Sec-Fetch-Site: cross-site) naming another site.
// - DNS rebinding: a page whose name resolves to 127.0.0.1 becomes "same-origin" with Ferry. Its
//   requests carry its own name in Host, so in local mode only loopback names (and the configured
//   host and public URL) are accepted.
// Tools and the CLI send neither Origin nor Sec-Fetch-Site, and name Ferry by its address.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { forbidden } from './api-error.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function installOriginGuard(app: FastifyInstance, config: AppConfig): void {
  const allowedHosts = new Set(LOOPBACK_NAMES);
  allowedHosts.add(config.server.host.toLowerCase());
  if (config.server.publicUrl) allowedHosts.add(new URL(config.server.publicUrl).hostname.toLowerCase());

  app.addHook('onRequest', async (request) => {
    const host = hostName(request.headers.host);
    if (
      config.auth.mode === 'local' &&
      host !== undefined &&
      !allowedHosts.has(host) &&
      !host.startsWith('127.')
    ) {
      throw forbidden(`Host ${host} is not this Ferry (local mode answers loopback names only)`, {
        field: 'host',
      });
    }
    if (SAFE_METHODS.has(request.method)) return;
    if (request.headers['sec-fetch-site'] === 'cross-site')
      throw forbidden('Cross-site requests are refused');
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null' && !sameOrigin(origin, request)) {
      throw forbidden(`Requests from ${origin} are refused`, { field: 'origin' });
    }
    if (origin === 'null') throw forbidden('Requests from opaque origins are refused', { field: 'origin' });
  });
}

function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const lower = header.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.split(':', 1)[0];
}

function sameOrigin(origin: string, request: FastifyRequest): boolean {
  try {
    return new URL(origin).host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}
