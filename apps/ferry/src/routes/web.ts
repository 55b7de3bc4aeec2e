// The built web app (apps/web/dist) at `/`, with index.html for client-side routes. Without a
// build, `/` says where the API is. Paths are resolved inside the root and never follow `..`.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';
import { mimeFromName } from '@ferry/contract';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../http/api-error.js';

export const webRoutes: FastifyPluginAsync<{ root?: string | undefined }> = async (app, options) => {
  const root = options.root === undefined ? undefined : resolve(options.root);

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = decodeURIComponentSafe((request.url.split('?', 1)[0] ?? '/').replace(/^\/+/, ''));
    if (path === undefined) throw notFound('No such page');
    if (path === 'api' || path.startsWith('api/')) throw notFound(`No route GET /${path}`);
    if (root === undefined || !(await isFile(join(root, 'index.html')))) {
      if (path !== '') throw notFound(`No route GET /${path}`);
      return reply
        .type('text/plain; charset=utf-8')
        .send('Ferry is running. The web app is not built; the API is described at /api/openapi.json\n');
    }
    const candidate = normalize(join(root, path));
    const inside = candidate === root || candidate.startsWith(root + sep);
    const file = inside && (await isFile(candidate)) ? candidate : join(root, 'index.html');
    const size = (await stat(file)).size;
    return reply
      .type(mimeFromName(file))
      .header('content-length', String(size))
      .header('cache-control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=3600')
      .send(createReadStream(file));
  });
};

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function decodeURIComponentSafe(text: string): string | undefined {
  try {
    const decoded = decodeURIComponent(text);
    return decoded.includes('\0') ? undefined : decoded;
  } catch {
    return undefined;
  }
}
