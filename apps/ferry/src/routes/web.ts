// The built web app (apps/web/dist) at `/`, with index.html for client-side routes (paths without
// an extension; a missing file with one is a 404, never the page). Without a build, `/` says where
// the API is. Paths are resolved inside the root and never follow `..`. Files go out through
// @fastify/static: ETag/Last-Modified with 304s, and the .br/.gz files the build writes beside
// each asset (apps/web/vite.config.ts) chosen by Accept-Encoding. Hashed files under /assets/ are
// cached for a year; index.html is revalidated every time, so a new build is picked up at once.
// Source maps are never served.
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../http/api-error.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;

export const webRoutes: FastifyPluginAsync<{ root?: string | undefined }> = async (app, options) => {
  const root = options.root === undefined ? undefined : resolve(options.root);
  // Only reply.sendFile (serve: false): the route below decides what a path means.
  await app.register(fastifyStatic, { serve: false, preCompressed: true, index: false, dotfiles: 'ignore' });

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
    const inside = candidate.startsWith(root + sep);
    const relative = inside ? candidate.slice(root.length + 1).replaceAll(sep, '/') : '';
    if (relative.endsWith('.map')) throw notFound(`No such file /${path}`);
    if (relative !== '' && relative !== 'index.html' && (await isFile(candidate))) {
      // Vite names what it puts under assets/ by content hash: a changed file is a new URL.
      return relative.startsWith('assets/')
        ? reply.sendFile(`/${relative}`, root, { maxAge: YEAR_MS, immutable: true })
        : reply.sendFile(`/${relative}`, root, { maxAge: 3600_000 });
    }
    // A missing script, stylesheet or image must not get the page (a stale tab would run HTML).
    if (extname(path) !== '' && relative !== 'index.html') throw notFound(`No such file /${path}`);
    return reply.header('cache-control', 'no-cache').sendFile('/index.html', root, { cacheControl: false });
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
