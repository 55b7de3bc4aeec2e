// The OpenAPI document is generated from the route schemas, and the schemas keep internals out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestApp, type TestApp } from '../support/start-app.js';

let t: TestApp;
let doc: {
  openapi: string;
  paths: Record<
    string,
    Record<string, { parameters?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> }>
  >;
  components: { schemas: Record<string, unknown> };
};

beforeAll(async () => {
  t = await startTestApp({ servers: {} });
  doc = (await http(t.url, '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

describe('/api/openapi.json', () => {
  it('is OpenAPI 3.1 and lists every API route', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/calls',
        '/api/calls/{id}',
        '/api/calls/{id}/events',
        '/api/calls/{id}/elicitations/{elicitationId}',
        '/api/canvas-opens',
        '/api/files',
        '/api/files/{id}',
        '/api/files/{id}/content',
        '/api/files/{id}/versions',
        '/api/file-provider/tokens',
        '/api/file-provider/tokens/{grantId}',
        '/api/file-provider/{username}/compat',
        '/api/file-provider/{username}/mcp',
        '/api/conversations',
        '/api/conversations/{id}',
        '/api/conversations/{id}/cancel',
        '/api/conversations/{id}/file-requests/{requestId}',
        '/api/conversations/{id}/messages',
        '/api/conversations/{id}/turn',
        '/api/events',
        '/api/me',
        '/api/oauth',
        '/api/oauth/callback',
        '/api/oauth/client-metadata.json',
        '/api/oauth/{server}',
        '/api/oauth/{server}/start',
        '/api/servers',
        '/api/servers/{server}/tools',
        '/api/servers/{server}/ui-resource',
        '/api/sessions',
        '/api/sessions/{id}',
        '/api/status',
        '/api/users/{username}',
      ].sort(),
    );
  });

  it('every operation documents its success and error responses; uploads take bytes or multipart', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses);
        // The OAuth callback only ever redirects the browser back into the app.
        const success = path === '/api/oauth/callback' ? '302' : '2';
        expect(
          statuses.some((s) => s.startsWith(success)),
          `${method} ${path}`,
        ).toBe(true);
        expect(statuses, `${method} ${path}`).toContain('4XX');
      }
    }
    const upload = doc.paths['/api/files']?.post?.requestBody as { content: Record<string, unknown> };
    expect(Object.keys(upload.content)).toEqual(['application/octet-stream', 'multipart/form-data']);
    expect(doc.paths['/api/calls/{id}/events']?.get?.responses['200']).toMatchObject({
      content: { 'text/event-stream': {} },
    });
  });

  it('no schema exposes owners, blob keys, session keys or server commands', () => {
    const text = JSON.stringify(doc.components.schemas);
    for (const secret of ['blobKey', '"owner"', 'sessionId', '"command"', '"args"', '"env"', '"headers"']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('validation errors', () => {
  it('name the field and come as an envelope', async () => {
    const result = await http(t.url, '/api/files?limit=abc&sort=evil');
    expect(result.status).toBe(400);
    const body = result.json<{
      results: { error: string };
      meta_data: { error_code: string; details: { field: string } };
    }>();
    expect(body.meta_data.error_code).toBe('E_INVALID_INPUT');
    expect(body.results.error).toContain('querystring.limit');
    expect(body.results.error).toContain('querystring.sort');
    expect(body.meta_data.details.field).toMatch(/^querystring\./);
  });

  it('a JSON body of the wrong shape names the body field', async () => {
    const result = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'x', tool: 7 }),
    });
    expect(result.status).toBe(400);
    expect(result.json<{ results: { error: string } }>().results.error).toContain('body.tool');
  });

  it('invalid JSON and a wrong content type are 4xx envelopes', async () => {
    const bad = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    const type = await http(t.url, '/api/calls', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'a,b',
    });
    expect(type.status).toBe(415);
    expect(type.json()).toMatchObject({ meta_data: { error_code: 'E_UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('every response carries nosniff and no-referrer', async () => {
    const result = await http(t.url, '/api/me');
    expect(result.headers['x-content-type-options']).toBe('nosniff');
    expect(result.headers['referrer-policy']).toBe('no-referrer');
    expect(result.headers['cache-control']).toBe('no-store');
  });
});
