// Who may ask: the proxy header only from trusted addresses, valid usernames only, the single
// local user of the embedded default; sessions ending with their files; path parameters that try
// to walk out of their place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asUser,
  type FileJson,
  http,
  PROXY_AUTH,
  PROXY_SECRET,
  startTestApp,
  type TestApp,
  upload,
  uploadOk,
} from '../support/start-app.js';

describe('proxy mode, Ferry reached directly (loopback is not a trusted proxy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      app: { auth: { ...PROXY_AUTH, trustedProxies: ['10.9.8.7', '192.168.0.0/16'] } },
      servers: {},
    });
  });
  afterAll(async () => t?.close());

  it('ignores the header from an untrusted address, even with the secret: 401 on every route, nothing stored', async () => {
    for (const [method, path] of [
      ['GET', '/api/me'],
      ['GET', '/api/files'],
      ['GET', '/api/servers'],
      ['POST', '/api/calls'],
    ] as const) {
      const result = await http(t.url, path, { method, headers: asUser('alice') });
      expect(result.status, path).toBe(401);
      expect(result.json()).toMatchObject({ meta_data: { error_code: 'E_UNAUTHORIZED', is_error: true } });
    }
    const put = await upload(t.url, 'x.txt', 'data', asUser('alice'));
    expect(put.status).toBe(401);
    const owner = await t.storage.files.ensureUser('alice');
    expect((await t.storage.files.list(owner)).total).toBe(0);
  });

  it('the OpenAPI document stays public', async () => {
    expect((await http(t.url, '/api/openapi.json')).status).toBe(200);
  });
});

describe('proxy mode behind a trusted proxy (loopback)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ app: { auth: { ...PROXY_AUTH, header: 'X-Remote-User' } }, servers: {} });
  });
  afterAll(async () => t?.close());

  it('takes the user from the configured header', async () => {
    const me = await http(t.url, '/api/me', {
      headers: { 'x-remote-user': 'carol@example.org', 'x-ferry-proxy-secret': PROXY_SECRET },
    });
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ username: 'carol@example.org', authMode: 'proxy' });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['traversal', '../root'],
    ['slash', 'a/b'],
    ['space', 'al ice'],
    ['leading dot', '.hidden'],
    ['too long', 'a'.repeat(129)],
  ])('an invalid username (%s) is 401', async (_label, value) => {
    const headers: Record<string, string> = { 'x-ferry-proxy-secret': PROXY_SECRET };
    if (value !== undefined) headers['x-remote-user'] = value;
    const result = await http(t.url, '/api/me', { headers });
    expect(result.status).toBe(401);
  });

  it('the default X-Forwarded-User is not believed when another header is configured', async () => {
    expect((await http(t.url, '/api/me', { headers: asUser('alice') })).status).toBe(401);
  });
});

describe('local mode (the embedded default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ storage: { persist_files_across_sessions: false }, servers: {} });
  });
  afterAll(async () => t?.close());

  it('everyone is dev; a proxy header changes nothing', async () => {
    const me = await http(t.url, '/api/me', { headers: { 'x-forwarded-user': 'root' } });
    expect(me.json()).toMatchObject({ username: 'dev', authMode: 'local' });
  });

  it('persist_files_across_sessions=false: ending the session deletes its files, only its files', async () => {
    const session = 'session-one-aaaa';
    const kept = await uploadOk(t.url, 'other.txt', 'other', { 'x-ferry-session': 'session-two-bbbb' });
    const gone = await uploadOk(t.url, 'mine.txt', 'mine', { 'x-ferry-session': session });
    const listed = await http(t.url, '/api/files?session=current', {
      headers: { 'x-ferry-session': session },
    });
    expect(listed.json<{ items: FileJson[] }>().items.map((f) => f.id)).toEqual([gone.id]);
    const ended = await http(t.url, `/api/sessions/${session}`, { method: 'DELETE' });
    expect(ended.json()).toEqual({ deletedFiles: 1 });
    expect((await http(t.url, `/api/files/${gone.id}`)).status).toBe(404);
    expect((await http(t.url, `/api/files/${kept.id}`)).status).toBe(200);
  });

  it('?temporary=true stores a session-only file even where files persist by default', async () => {
    const persistent = await startTestApp({ servers: {} });
    try {
      const headers = { 'x-ferry-session': 'temp-session-1' };
      const temp = (await upload(persistent.url, 't.txt', 't', headers)).json<{ files: FileJson[] }>()
        .files[0];
      const put = await http(persistent.url, '/api/files?name=kept.txt&temporary=true', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: 'temporary',
      });
      const session = put.json<{ files: (FileJson & { temporary: boolean })[] }>().files[0];
      expect(session?.temporary).toBe(true);
      await http(persistent.url, '/api/sessions/temp-session-1', { method: 'DELETE' });
      expect((await http(persistent.url, `/api/files/${session?.id}`)).status).toBe(404);
      expect((await http(persistent.url, `/api/files/${temp?.id}`)).status).toBe(200);
    } finally {
      await persistent.close();
    }
  });

  it('a request without a session gets one back in X-Ferry-Session', async () => {
    const result = await upload(t.url, 'x.txt', 'x');
    expect(result.headers['x-ferry-session']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a malformed session id is a 400', async () => {
    const result = await http(t.url, '/api/files', { headers: { 'x-ferry-session': 'bad id!' } });
    expect(result.status).toBe(400);
  });
});

describe('path parameters with traversal', () => {
  let t: TestApp;
  let file: FileJson;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
    file = await uploadOk(t.url, 'a.txt', 'a');
  });
  afterAll(async () => t?.close());

  it.each([
    '/api/files/..%2F..%2Fetc%2Fpasswd',
    '/api/files/..%2F..%2Fetc%2Fpasswd/content',
    '/api/files/%2e%2e/content',
    '/api/files/..%5c..%5cwindows/content',
    '/api/files/%00/content',
    '/api/files/../../etc/passwd',
    '/api/files/x/../../../etc/passwd/content',
    '/api/servers/..%2F..%2Fetc/tools',
    '/api/calls/..%2F..%2F/events',
    '/api/sessions/..%2F..%2Fx',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/api/files/%252e%252e%252f/content',
  ])('%s is a 4xx envelope, never a file', async (path) => {
    const result = await http(t.url, path, { method: path.startsWith('/api/sessions') ? 'DELETE' : 'GET' });
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(result.text).not.toContain('root:');
    expect(() => result.json()).not.toThrow();
  });

  it('the file is still there', async () => {
    expect((await http(t.url, `/api/files/${file.id}/content`)).text).toBe('a');
  });
});

describe('browsers on other sites', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
  });
  afterAll(async () => t?.close());

  it('a cross-site upload (a "simple" request, no preflight) is refused and stores nothing', async () => {
    const attempts: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of attempts) {
      const result = await upload(t.url, 'csrf.txt', 'x', { 'content-type': 'text/plain', ...headers });
      expect(result.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await http(t.url, '/api/files')).json<{ total: number }>().total).toBe(0);
  });

  it('the same origin (the web app) may write', async () => {
    const origin = t.url;
    const result = await upload(t.url, 'ok.txt', 'x', { origin, 'sec-fetch-site': 'same-origin' });
    expect(result.status).toBe(201);
  });

  it('DNS rebinding: a foreign Host name is refused in local mode', async () => {
    const result = await http(t.url, '/api/files', { headers: { host: 'attacker.example:80' } });
    expect(result.status).toBe(403);
    expect((await http(t.url, '/api/me', { headers: { host: 'localhost' } })).status).toBe(200);
  });
});
