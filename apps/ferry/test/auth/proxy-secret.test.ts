// Proxy mode believes the user header only when the request comes from a trusted address AND
// carries the shared secret the proxy adds: a sandboxed tool with network access reaches Ferry
// from loopback too, and could otherwise name any user. Without a secret proxy mode does not start.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createAuthenticator } from '../../src/auth/authenticate.js';
import { runCli } from '../../src/cli/program.js';
import { defaultAppConfig } from '../../src/config/app-config.js';
import { parseFerryConfig } from '../../src/config/load-config.js';
import {
  asUser,
  http,
  PROXY_AUTH,
  PROXY_SECRET,
  startTestApp,
  type TestApp,
  upload,
} from '../support/start-app.js';

const UNAUTHORIZED = { meta_data: { is_error: true, error_code: 'E_UNAUTHORIZED' } };

/** A writable that keeps what is written to it. */
function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

describe('proxy mode without a shared secret', () => {
  it('the config is refused, naming the setting and the environment variable', () => {
    let message = '';
    try {
      parseFerryConfig({ auth: { mode: 'proxy' } }, { env: {} });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('auth.proxySecret');
    expect(message).toContain('FERRY_PROXY_SECRET');
    expect(() => defaultAppConfig({ auth: { mode: 'proxy' } })).toThrow(
      /auth\.proxySecret.*FERRY_PROXY_SECRET/,
    );
  });

  it('FERRY_PROXY_SECRET supplies it; a too short secret is refused without being echoed', () => {
    const config = parseFerryConfig(
      { auth: { mode: 'proxy' } },
      { env: { FERRY_PROXY_SECRET: PROXY_SECRET } },
    );
    expect(config.app.auth).toMatchObject({ mode: 'proxy', proxySecretHeader: 'x-ferry-proxy-secret' });
    let message = '';
    try {
      parseFerryConfig({ auth: { mode: 'proxy' } }, { env: { FERRY_PROXY_SECRET: 'short-s3cr3t' } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('auth.proxySecret');
    expect(message).not.toContain('short-s3cr3t');
  });

  it('an authenticator for proxy mode cannot be made without one', () => {
    const config = { ...defaultAppConfig().auth, mode: 'proxy' as const };
    expect(() => createAuthenticator(config, { ensureUser: async (name) => name })).toThrow(
      /auth\.proxySecret/,
    );
  });
});

describe('proxy mode with a shared secret, behind a trusted proxy (loopback)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ app: { auth: PROXY_AUTH }, servers: {} });
  });
  afterAll(async () => t?.close());

  it('the right secret from a trusted address: the request is the named user', async () => {
    const me = await http(t.url, '/api/me', { headers: asUser('alice') });
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ username: 'alice', authMode: 'proxy' });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['wrong', 'not-the-proxy-secret-at-all'],
    ['one character short', PROXY_SECRET.slice(0, -1)],
    ['one character more', `${PROXY_SECRET}x`],
    ['other case', PROXY_SECRET.toUpperCase()],
  ])('a %s secret is 401 with the error envelope', async (_label, secret) => {
    const headers: Record<string, string> = { 'x-forwarded-user': 'alice' };
    if (secret !== undefined) headers['x-ferry-proxy-secret'] = secret;
    const result = await http(t.url, '/api/me', { headers });
    expect(result.status).toBe(401);
    expect(result.json()).toMatchObject(UNAUTHORIZED);
    expect(result.text).not.toContain(PROXY_SECRET);
  });

  it('the CLI sends FERRY_PROXY_SECRET along with --user', async () => {
    const run = async (env: NodeJS.ProcessEnv) => {
      const stdout = sink();
      const stderr = sink();
      const io = { stdout: stdout.stream, stderr: stderr.stream as unknown as NodeJS.WriteStream, env };
      const code = await runCli(['--url', t.url, '--user', 'dora', '--json', 'files', 'ls'], io);
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };
    const signedIn = await run({ FERRY_PROXY_SECRET: PROXY_SECRET });
    expect(signedIn.code).toBe(0);
    expect(JSON.parse(signedIn.stdout)).toMatchObject({ total: 0 });
    const without = await run({});
    expect(without.code).toBe(4);
    expect(without.stderr).toContain('x-ferry-proxy-secret');
  });

  it('an upload with a wrong secret is refused and stores nothing', async () => {
    const put = await upload(t.url, 'forged.txt', 'data', {
      'x-forwarded-user': 'alice',
      'x-ferry-proxy-secret': 'forged-forged-forged-forged',
    });
    expect(put.status).toBe(401);
    expect(put.json()).toMatchObject(UNAUTHORIZED);
    const owner = await t.storage.files.ensureUser('alice');
    expect((await t.storage.files.list(owner)).total).toBe(0);
  });
});

describe('proxy mode, the right secret from an untrusted address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ app: { auth: { ...PROXY_AUTH, trustedProxies: ['10.9.8.7'] } }, servers: {} });
  });
  afterAll(async () => t?.close());

  it('is still 401', async () => {
    const result = await http(t.url, '/api/me', { headers: asUser('alice') });
    expect(result.status).toBe(401);
    expect(result.json()).toMatchObject(UNAUTHORIZED);
  });
});

describe('proxy mode with its own secret header', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      app: { auth: { ...PROXY_AUTH, proxySecretHeader: 'X-Proxy-Auth' } },
      servers: {},
    });
  });
  afterAll(async () => t?.close());

  it('reads the secret from the configured header only', async () => {
    const ok = await http(t.url, '/api/me', {
      headers: { 'x-forwarded-user': 'bob', 'x-proxy-auth': PROXY_SECRET },
    });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ username: 'bob' });
    expect((await http(t.url, '/api/me', { headers: asUser('bob') })).status).toBe(401);
  });
});

describe('the secret stays out of the logs', () => {
  it('is never written, whether it is right or wrong', async () => {
    const log = sink();
    const t = await startTestApp({ app: { auth: PROXY_AUTH }, servers: {} });
    const app = buildApp({
      files: t.storage.files,
      host: t.host,
      config: defaultAppConfig({ auth: PROXY_AUTH }),
      logger: { level: 'trace', stream: log.stream },
    });
    try {
      const wrong = 'a-wrong-secret-that-is-long-enough';
      const right = await app.inject({ url: '/api/me', headers: asUser('alice') });
      const refused = await app.inject({
        url: '/api/me',
        headers: { 'x-forwarded-user': 'alice', 'x-ferry-proxy-secret': wrong },
      });
      expect([right.statusCode, refused.statusCode]).toEqual([200, 401]);
      expect(log.text()).toContain('/api/me');
      expect(log.text()).not.toContain(PROXY_SECRET);
      expect(log.text()).not.toContain(wrong);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
