// Per-user rate limits (http/rate-limit.ts) with the real @fastify/rate-limit in a real Ferry:
// call starts, uploads and the rest counted per user, refusals as the 429 envelope, exempt users
// and requests without a user left out, an upload refused before its body is read; in scale mode,
// one limit across two instances sharing Redis, counted under the deployment's prefix.
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticate.js';
import { installAuth } from '../../src/auth/request-context.js';
import type { Sessions } from '../../src/auth/sessions.js';
import { appConfigSchema, defaultAppConfig } from '../../src/config/app-config.js';
import { installErrorHandler } from '../../src/http/error-handler.js';
import { type RegisterRateLimitOptions, registerRateLimit } from '../../src/http/rate-limit.js';
import { asUser, http, PROXY_AUTH, startTestApp, type TestApp, upload } from '../support/start-app.js';
import { startTestCluster, type TestCluster } from '../support/start-cluster.js';

/** A call that is accepted (202) and fails on its own later: enough to count a start. */
const CALL = JSON.stringify({ server: 'slow', tool: 'no_such_tool' });
const startCall = (base: string, user: string) =>
  http(base, '/api/calls', {
    method: 'POST',
    headers: { ...asUser(user), 'content-type': 'application/json' },
    body: CALL,
  });

/**
 * Announces 64 MiB and sends 1 KiB, then waits for the answer: it can only come while the body is
 * still unread (else the request would wait for the rest, and the test time out).
 */
async function postPartially(base: string, path: string, headers: Record<string, string>) {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = httpRequest(new URL(path, base), {
      method: 'POST',
      headers: { ...headers, 'content-length': 64 * 1024 * 1024 },
    });
    request.on('response', resolve);
    request.on('error', reject);
    request.write(Buffer.alloc(1024, 0x20));
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  response.socket?.destroy();
  return {
    status: response.statusCode,
    headers: response.headers,
    json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
  };
}

describe('the rateLimit config section', () => {
  it('is off by default, with the documented limits', () => {
    expect(defaultAppConfig().rateLimit).toEqual({
      enabled: false,
      callStarts: { max: 60, windowSeconds: 60 },
      uploads: { max: 120, windowSeconds: 60 },
      api: { max: 1200, windowSeconds: 60 },
      exemptUsers: [],
    });
  });

  it('refuses a bad limit or username, naming it', () => {
    const issues = (rateLimit: unknown) =>
      appConfigSchema.safeParse({ rateLimit }).error?.issues.map((issue) => issue.message) ?? [];
    expect(issues({ callStarts: { max: 0 } })).toEqual(['rateLimit.callStarts.max must be >= 1']);
    expect(issues({ api: { windowSeconds: 90_000 } })).toEqual([
      'rateLimit.api.windowSeconds must be at most 86400 (a day)',
    ]);
    expect(issues({ exemptUsers: ['no spaces'] })).toEqual([
      'rateLimit.exemptUsers holds an invalid username',
    ]);
    expect(issues({ uploads: { maxx: 3 } })).toHaveLength(1);
  });
});

describe('rate limits in one instance (memory store)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      app: {
        auth: PROXY_AUTH,
        rateLimit: {
          enabled: true,
          callStarts: { max: 2 },
          uploads: { max: 1 },
          api: { max: 3 },
          exemptUsers: ['svc'],
        },
      },
    });
  }, 60_000);
  afterAll(async () => t?.close());

  it('refuses the third call start with the 429 envelope and Retry-After; another user is unaffected', async () => {
    expect((await startCall(t.url, 'alice')).status).toBe(202);
    const second = await startCall(t.url, 'alice');
    expect(second.status).toBe(202);
    expect(second.headers['x-ratelimit-limit']).toBe('2');
    expect(second.headers['x-ratelimit-remaining']).toBe('0');

    const refused = await startCall(t.url, 'alice');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({
      results: {
        error: expect.stringMatching(
          /^Too many tool calls started: at most 2 in 60 s; retry in (1 minute|\d+ seconds?)$/,
        ),
      },
      meta_data: {
        is_error: true,
        reason: 'RateLimited',
        error_code: 'E_RATE_LIMITED',
        details: {
          limit: 'rateLimit.callStarts',
          max: 2,
          window_seconds: 60,
          retry_after_seconds: retryAfter,
          suggestion:
            'Wait until the time in Retry-After (details.retry_after_seconds) has passed, then try again',
        },
        retryable: true,
      },
    });

    expect((await startCall(t.url, 'bob')).status).toBe(202);
  });

  it('counts other requests against the api limit, apart from call starts', async () => {
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const listed = await http(t.url, '/api/files', { headers: asUser('dave') });
      expect(listed.status).toBe(200);
      remaining.push(listed.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await http(t.url, '/api/files', { headers: asUser('dave') });
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({
      meta_data: { error_code: 'E_RATE_LIMITED', details: { limit: 'rateLimit.api', max: 3 } },
    });
    // Call starts have a counter of their own.
    expect((await startCall(t.url, 'dave')).status).toBe(202);
  });

  it('never limits an exempt user', async () => {
    for (let i = 0; i < 5; i++) {
      const listed = await http(t.url, '/api/files', { headers: asUser('svc') });
      expect(listed.status).toBe(200);
      expect(listed.headers).not.toHaveProperty('x-ratelimit-limit');
    }
    for (let i = 0; i < 3; i++) expect((await startCall(t.url, 'svc')).status).toBe(202);
  });

  it('does not count requests without a user', async () => {
    for (let i = 0; i < 5; i++) {
      // A route reached without a user (auth: 'none'), and one that needs a user (401 first).
      const open = await http(t.url, '/api/oauth/client-metadata.json');
      expect(open.status).not.toBe(429);
      expect(open.headers).not.toHaveProperty('x-ratelimit-limit');
      const anonymous = await http(t.url, '/api/files');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers).not.toHaveProperty('x-ratelimit-limit');
    }
  });

  it('refuses an upload over its limit before reading its body', async () => {
    expect((await upload(t.url, 'small.txt', 'hello', asUser('carol'))).status).toBe(201);
    const response = await postPartially(t.url, '/api/files?name=big.bin', {
      ...asUser('carol'),
      'content-type': 'application/octet-stream',
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    expect(response.json).toMatchObject({
      meta_data: { error_code: 'E_RATE_LIMITED', retryable: true, details: { limit: 'rateLimit.uploads' } },
    });
    const listed = await http(t.url, '/api/files', { headers: asUser('carol') });
    expect(listed.json<{ items: { name: string }[] }>().items.map((file) => file.name)).toEqual([
      'small.txt',
    ]);
  });
});

describe('rate limits turned off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ app: { auth: PROXY_AUTH } });
  }, 60_000);
  afterAll(async () => t?.close());

  it('register nothing: no x-ratelimit-* headers', async () => {
    const listed = await http(t.url, '/api/files', { headers: asUser('alice') });
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
  });
});

describe('rate limits across instances sharing Redis', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({
      // The cluster's Redis is made inside startTestCluster: the config that names it comes here.
      deps: ({ redis }) => ({
        config: defaultAppConfig({
          auth: PROXY_AUTH,
          rateLimit: { enabled: true, callStarts: { max: 2 } },
          redis: { url: redis.url, prefix: redis.prefix },
        }),
      }),
    });
  }, 60_000);
  afterAll(async () => cluster?.close());

  it('hold one limit for both, counted under the deployment prefix', async () => {
    const [a, b] = cluster.instances.map((instance) => instance.url) as [string, string];
    const statuses = [];
    for (const base of [a, b, a]) statuses.push((await startCall(base, 'alice')).status);
    expect(statuses).toEqual([202, 202, 429]);
    const { prefix, client } = cluster.redis;
    const key = `${prefix}rate-limit:POST/api/calls-user:alice`;
    expect(await client.get(key)).toBe('3');
    expect(await client.pttl(key)).toBeGreaterThan(0);
  });
});

const BARE_SECRET = 'rate-limit-secret-0123';
const BARE_ALICE = { 'x-forwarded-user': 'alice', 'x-ferry-proxy-secret': BARE_SECRET };

/** Ferry's /api context in small: auth, then the limits, then one JSON route; the error handler. */
async function bareApi(options: Omit<RegisterRateLimitOptions, 'config'> & { max: number }) {
  const config = defaultAppConfig({
    auth: { mode: 'proxy', proxySecret: BARE_SECRET },
    rateLimit: { enabled: true, api: { max: options.max } },
  });
  const app: FastifyInstance = Fastify();
  installErrorHandler(app, (envelope) => envelope);
  const handled: unknown[] = [];
  await app.register(
    async (api) => {
      installAuth(api, {
        authenticator: createAuthenticator(config.auth, { ensureUser: async (user) => `o-${user}` }),
        sessions: { touch: () => {} } as unknown as Sessions,
      });
      await registerRateLimit(api, { ...options, config: config.rateLimit });
      api.post('/echo', async (request) => {
        handled.push(request.body);
        return {};
      });
    },
    { prefix: '/api' },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, handled, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('registerRateLimit on a bare /api context', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await createTestRedis();
  });
  afterAll(() => redis?.drop());

  it('checks before the body is parsed (onRequest), so the handler never runs', async () => {
    const { app, handled, url } = await bareApi({ max: 1 });
    try {
      const json = { ...BARE_ALICE, 'content-type': 'application/json' };
      const first = await http(url, '/api/echo', { method: 'POST', headers: json, body: '{"n":1}' });
      expect(first.status).toBe(200);
      // Fastify's JSON parser reads the whole body: a check in a later hook would wait for it.
      const second = await postPartially(url, '/api/echo', json);
      expect(second.status).toBe(429);
      expect(handled).toEqual([{ n: 1 }]);
    } finally {
      await app.close();
    }
  });

  it('in scale mode, counts over a Redis connection of its own, closed with the app', async () => {
    const instanceId = randomUUID();
    const name = `ferry:${instanceId}:rate-limit`;
    const { app, url } = await bareApi({
      max: 1200,
      redis: {
        config: { url: redis.url, prefix: redis.prefix, heartbeatMs: 5_000, requestTimeoutMs: 10_000 },
        instanceId,
      },
    });
    try {
      const answer = await http(url, '/api/echo', {
        method: 'POST',
        headers: { ...BARE_ALICE, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('1200');
      expect(await redis.client.get(`${redis.prefix}rate-limit:user:alice`)).toBe('1');
      expect(await redis.client.client('LIST')).toContain(`name=${name} `);
    } finally {
      await app.close();
    }
    expect(await redis.client.client('LIST')).not.toContain(`name=${name} `);
  });
});
