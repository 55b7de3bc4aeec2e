// Delivery of the built web app (routes/web.ts) from a fixture build laid out as Vite writes it:
// hashed assets with .br/.gz beside them, a source map, index.html. Compression per
// Accept-Encoding, year-long immutable caching of /assets/, index.html revalidated, ETag 304s,
// 404 (never the page) for a missing file with an extension, no source maps.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { startTestApp, type TestApp } from '../support/start-app.js';

const SCRIPT = `export const rows=[${Array.from({ length: 400 }, (_, i) => `{id:${i},name:"row ${i}"}`).join(',')}];\n`;
const INDEX =
  '<!doctype html><html lang="en"><head><title>Ferry</title>' +
  '<script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script></head>' +
  `<body><div id="root"></div>${'<!-- padding so it compresses -->'.repeat(20)}</body></html>`;
const IMMUTABLE = 'public, max-age=31536000, immutable';

describe('the web app delivery', () => {
  let t: TestApp;
  let app: FastifyInstance;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
    const dist = join(t.dir, 'web-dist');
    await mkdir(join(dist, 'assets'), { recursive: true });
    const files: Record<string, string | Buffer> = {
      'index.html': INDEX,
      'index.html.br': brotliCompressSync(INDEX),
      'index.html.gz': gzipSync(INDEX),
      'assets/index-Ab12Cd34.js': SCRIPT,
      'assets/index-Ab12Cd34.js.br': brotliCompressSync(SCRIPT),
      'assets/index-Ab12Cd34.js.gz': gzipSync(SCRIPT),
      'assets/index-Ab12Cd34.js.map': '{"version":3,"sources":["../src/secret.ts"]}',
      'robots.txt': 'User-agent: *\n',
      '.env': 'SECRET=1\n',
    };
    for (const [name, body] of Object.entries(files)) await writeFile(join(dist, name), body);
    await writeFile(join(t.dir, 'outside.txt'), 'outside the web root');
    app = buildApp({
      files: t.storage.files,
      host: t.host,
      config: defaultAppConfig(),
      webRoot: dist,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });

  it('serves a hashed asset brotli-compressed when asked, cached for a year', async () => {
    const response = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(response.headers['cache-control']).toBe(IMMUTABLE);
    expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(response.rawPayload).toString()).toBe(SCRIPT);
    expect(response.rawPayload.length).toBeLessThan(SCRIPT.length / 2);
  });

  it('serves gzip to a client without brotli, and the plain file to one that asks for neither', async () => {
    const gzip = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);
    expect(gzip.headers['cache-control']).toBe(IMMUTABLE);

    const plain = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('answers a revalidation with 304 (ETag)', async () => {
    const first = await get('/assets/index-Ab12Cd34.js', { 'accept-encoding': 'br' });
    const etag = first.headers.etag;
    expect(typeof etag).toBe('string');
    const again = await get('/assets/index-Ab12Cd34.js', {
      'accept-encoding': 'br',
      'if-none-match': String(etag),
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('serves index.html at / and for client-side routes, compressed and never cached unvalidated', async () => {
    for (const url of ['/', '/index.html', '/chat', '/some/deep/route?x=1']) {
      const response = await get(url, { 'accept-encoding': 'gzip' });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.headers['content-encoding'], url).toBe('gzip');
      expect(gunzipSync(response.rawPayload).toString(), url).toBe(INDEX);
    }
  });

  it('answers 404, not the page, for a missing file with an extension', async () => {
    for (const url of [
      '/assets/index-Gone0000.js',
      '/assets/style-Gone0000.css',
      '/favicon.ico',
      '/x/y.png',
    ]) {
      const response = await get(url, { 'accept-encoding': 'br, gzip' });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^application\/json/);
      expect(response.body, url).not.toContain('<div id="root">');
    }
  });

  it('never serves source maps, even when the build has them', async () => {
    const response = await get('/assets/index-Ab12Cd34.js.map');
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('secret.ts');
  });

  it('serves other files of the build with a short cache, and no dotfiles or files outside it', async () => {
    const robots = await get('/robots.txt');
    expect(robots.statusCode).toBe(200);
    expect(robots.headers['cache-control']).toBe('public, max-age=3600');

    expect((await get('/.env')).statusCode).toBe(404);
    for (const url of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/..%2f..%2foutside.txt']) {
      const response = await get(url);
      expect(response.body, url).not.toContain('outside the web root');
    }
  });

  it('leaves /api to the API', async () => {
    const response = await get('/api/no-such-route');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ meta_data: { error_code: 'E_NOT_FOUND' } });
  });
});
