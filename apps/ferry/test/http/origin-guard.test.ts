// DNS rebinding in local mode: a page whose name resolves to 127.0.0.1 talks to Ferry with its
// own name in Host. Only exact loopback names pass (localhost, 127.x.y.z as a literal address,
// [::1]) plus the configured host and public URL; a name that merely starts with `127.` does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileJson, http, startTestApp, type TestApp, upload, uploadOk } from '../support/start-app.js';

const FORBIDDEN = { meta_data: { is_error: true, error_code: 'E_FORBIDDEN' } };

describe('local mode: the Host header', () => {
  let t: TestApp;
  let port: string;
  let file: FileJson;
  beforeAll(async () => {
    t = await startTestApp({ servers: {} });
    port = new URL(t.url).port;
    file = await uploadOk(t.url, 'kept.txt', 'kept');
  });
  afterAll(async () => t?.close());

  const refused = [
    '127.attacker.example',
    '127.attacker.example:8787',
    '127.0.0.1.evil.com',
    '127.0.0.1.evil.com:8787',
    '127.1',
    '127.0.1',
    '127.0.0.256',
    '127.0.0.01',
    '127.0.0.1:80:80',
    '127.0.0.1:port',
    '[::1].evil.com',
    'localhost.evil.com',
    '0x7f.0.0.1',
  ];

  it.each(refused)('Host: %s is 403 for listing, uploading and deleting; nothing changes', async (host) => {
    const listed = await http(t.url, '/api/files', { headers: { host } });
    expect(listed.status).toBe(403);
    expect(listed.json()).toMatchObject(FORBIDDEN);

    const put = await upload(t.url, 'rebound.txt', 'x', { host });
    expect(put.status).toBe(403);
    expect(put.json()).toMatchObject(FORBIDDEN);

    const deleted = await http(t.url, `/api/files/${file.id}`, { method: 'DELETE', headers: { host } });
    expect(deleted.status).toBe(403);
    expect(deleted.json()).toMatchObject(FORBIDDEN);

    const names = (await http(t.url, '/api/files')).json<{ items: FileJson[] }>().items.map((f) => f.name);
    expect(names).toEqual(['kept.txt']);
  });

  // PORT stands for the port Ferry listens on.
  it.each([
    '127.0.0.1:PORT',
    '127.0.0.1',
    '127.5.6.7',
    '127.255.255.254:PORT',
    'localhost:PORT',
    'LOCALHOST',
    '[::1]:PORT',
    '[::1]',
  ])('Host: %s is allowed', async (template) => {
    const host = template.replace('PORT', port);
    const listed = await http(t.url, '/api/files', { headers: { host } });
    expect(listed.status, host).toBe(200);
    const put = await upload(t.url, 'allowed.txt', host, { host });
    expect(put.status, host).toBe(201);
  });
});

describe('local mode: the configured host and public URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      app: { server: { host: 'ferry.internal', publicUrl: 'https://files.example.org:8443/' } },
      servers: {},
    });
  });
  afterAll(async () => t?.close());

  it('answer to their own names, and still not to others', async () => {
    for (const host of ['ferry.internal:8787', 'files.example.org:8443', 'files.example.org']) {
      expect((await http(t.url, '/api/files', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['files.example.org.evil.com', 'evil.internal', '127.files.example.org']) {
      expect((await http(t.url, '/api/files', { headers: { host } })).status, host).toBe(403);
    }
  });
});
