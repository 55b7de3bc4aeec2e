// The MCP Apps sandbox origin: the proxy page with the app's policy, nothing else, and its
// listener opened and closed with Ferry.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppCsp, parseCspDomains } from '../../src/apps-sandbox/app-csp.js';
import { SANDBOX_PROXY_PATH, startAppsSandbox } from '../../src/apps-sandbox/sandbox-server.js';
import { startServer } from '../../src/server.js';
import { http } from '../support/start-app.js';

const directive = (csp: string, name: string) =>
  csp
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `));

describe('app CSP', () => {
  it('is the restrictive default without declarations', () => {
    const csp = buildAppCsp();
    expect(directive(csp, 'default-src')).toBe("default-src 'none'");
    expect(directive(csp, 'connect-src')).toBe("connect-src 'none'");
    expect(directive(csp, 'frame-src')).toBe("frame-src 'none'");
    expect(directive(csp, 'object-src')).toBe("object-src 'none'");
    expect(directive(csp, 'base-uri')).toBe("base-uri 'self'");
    expect(directive(csp, 'script-src')).toBe("script-src 'self' 'unsafe-inline'");
  });

  it('adds declared origins to their directives and drops anything that is not one origin', () => {
    const parsed = parseCspDomains(
      JSON.stringify({
        connectDomains: [
          'http://127.0.0.1:4000',
          "https://x.test; script-src 'unsafe-eval'",
          'https://a.test b.test',
        ],
        resourceDomains: ['https://*.cdn.test'],
        frameDomains: ['https://player.test'],
      }),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.dropped).toEqual(["https://x.test; script-src 'unsafe-eval'", 'https://a.test b.test']);
    const csp = buildAppCsp(parsed.domains);
    expect(directive(csp, 'connect-src')).toBe('connect-src http://127.0.0.1:4000');
    expect(directive(csp, 'img-src')).toBe("img-src 'self' data: blob: https://*.cdn.test");
    expect(directive(csp, 'frame-src')).toBe('frame-src https://player.test');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp.split(';')).toHaveLength(11);
  });

  it('refuses what is not a domain object', () => {
    expect(parseCspDomains('[1]')).toMatchObject({ ok: false });
    expect(parseCspDomains('{"connectDomains":"https://a.test"}')).toMatchObject({ ok: false });
    expect(parseCspDomains('{')).toMatchObject({ ok: false });
  });
});

describe('sandbox listener', () => {
  it('serves the proxy page with the policy, refuses everything else, and closes', async () => {
    const sandbox = await startAppsSandbox({ host: '127.0.0.1', port: 0 });
    try {
      expect(sandbox.proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox-proxy\.html$/);
      const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['http://127.0.0.1:4000'] }));
      const page = await http(
        sandbox.origin,
        `${SANDBOX_PROXY_PATH}?host=http%3A%2F%2F127.0.0.1%3A1&csp=${csp}`,
      );
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(directive(String(page.headers['content-security-policy']), 'connect-src')).toBe(
        'connect-src http://127.0.0.1:4000',
      );
      expect(page.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(page.headers['set-cookie']).toBeUndefined();
      expect(page.headers['access-control-allow-origin']).toBeUndefined();
      expect(page.text).toContain('ui/notifications/sandbox-');
      expect(page.text).toContain("'allow-scripts allow-forms'".replace(/'/g, '"'));
      expect(page.text).not.toContain('allow-same-origin');

      const plain = await http(sandbox.origin, SANDBOX_PROXY_PATH);
      expect(directive(String(plain.headers['content-security-policy']), 'connect-src')).toBe(
        "connect-src 'none'",
      );

      for (const path of ['/api/status', '/api/me', '/api/files', '/', '/index.html']) {
        const other = await http(sandbox.origin, path);
        expect(other.status, path).toBe(404);
        expect(other.text).toContain('only the MCP Apps sandbox proxy');
      }
      expect((await http(sandbox.origin, SANDBOX_PROXY_PATH, { method: 'POST', body: 'x' })).status).toBe(
        405,
      );
      expect((await http(sandbox.origin, `${SANDBOX_PROXY_PATH}?csp=%7B`)).status).toBe(400);
    } finally {
      await sandbox.close();
    }
    await expect(http(sandbox.origin, SANDBOX_PROXY_PATH)).rejects.toThrow();
  });
});

describe('sandbox listener in startServer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ferry-apps-sandbox-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('starts beside Ferry on another origin, is named in /api/status, and closes with Ferry', async () => {
    const server = await startServer({ cwd: dir, env: {}, port: 0, logLevel: 'silent' });
    let proxyUrl = '';
    try {
      const status = (await http(server.url, '/api/status')).json<{ appsSandboxUrl?: string }>();
      proxyUrl = status.appsSandboxUrl ?? '';
      expect(proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox-proxy\.html$/);
      expect(new URL(proxyUrl).origin).not.toBe(new URL(server.url).origin);
      expect(server.summary).toContain(`  apps     MCP Apps sandbox origin ${new URL(proxyUrl).origin}`);
      expect((await http(proxyUrl, proxyUrl)).status).toBe(200);
      // Ferry's API is not on the sandbox origin.
      expect((await http(new URL(proxyUrl).origin, '/api/status')).status).toBe(404);
    } finally {
      await server.close();
    }
    await expect(http(proxyUrl, proxyUrl)).rejects.toThrow();
  });

  it('says clearly when the sandbox port is taken, and leaves nothing open', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(
        startServer({
          cwd: dir,
          env: { FERRY_APPS_SANDBOX_PORT: String(port) },
          port: 0,
          logLevel: 'silent',
        }),
      ).rejects.toThrow(/MCP Apps sandbox origin\) is in use.*FERRY_APPS_SANDBOX_PORT/);
      // The data directory's lock was released: a second start works.
      const again = await startServer({ cwd: dir, env: {}, port: 0, logLevel: 'silent' });
      await again.close();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it("refuses a sandbox URL on Ferry's own origin", async () => {
    await expect(
      startServer({
        cwd: dir,
        env: {
          FERRY_PUBLIC_URL: 'http://ferry.test:8080',
          FERRY_APPS_SANDBOX_URL: 'http://ferry.test:8080/apps',
        },
        port: 0,
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/apps.sandboxPublicUrl must not be Ferry's own origin/);
  });
});
