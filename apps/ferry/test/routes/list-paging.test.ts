// Every paged list route over real HTTP honours limit and offset: pages hold at most `limit`
// items, walking them yields every item once in the route's order, `total` counts them all, and
// a bad or unknown paging parameter is a 400 rather than an unpaged answer.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/cli/api-client.js';
import { followEvents } from '../../src/cli/sse-reader.js';
import {
  exampleServers,
  type FileJson,
  http,
  startTestApp,
  type TestApp,
  uploadOk,
} from '../support/start-app.js';

interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

let t: TestApp;

beforeAll(async () => {
  const all = await exampleServers();
  t = await startTestApp({ servers: { media: all.media } });
}, 60_000);
afterAll(async () => t?.close());

async function page<T>(path: string): Promise<Page<T>> {
  const result = await http(t.url, path);
  expect(result.status, `${path}: ${result.text}`).toBe(200);
  return result.json<Page<T>>();
}

/** Walks a list `size` items at a time; every page checked against limit/offset/total. */
async function walk<T>(path: string, size: number): Promise<T[]> {
  const seen: T[] = [];
  const join = path.includes('?') ? '&' : '?';
  for (let offset = 0; ; offset += size) {
    const result = await page<T>(`${path}${join}limit=${size}&offset=${offset}`);
    expect(result.limit).toBe(size);
    expect(result.offset).toBe(offset);
    expect(result.items.length).toBeLessThanOrEqual(size);
    seen.push(...result.items);
    if (offset + size >= result.total) {
      expect(seen).toHaveLength(result.total);
      return seen;
    }
    expect(result.items).toHaveLength(size);
  }
}

async function expect400(path: string, field: RegExp): Promise<void> {
  const result = await http(t.url, path);
  expect(result.status, path).toBe(400);
  expect(result.json<{ results: { error: string } }>().results.error).toMatch(field);
}

describe('GET /api/calls', () => {
  it('pages newest first by limit/offset, total counts every call', async () => {
    const client = createApiClient({ url: t.url });
    const started: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { callId } = await client.json<{ callId: string }>('POST', '/api/calls', {
        server: 'media',
        tool: 'make_image',
        arguments: {},
      });
      started.push(callId);
      // One at a time, each to its end: their start times are then strictly ordered.
      await followEvents(client, `/api/calls/${callId}/events`, { onEvent: () => {} });
    }
    const first = await page<{ callId: string }>('/api/calls?limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.total).toBe(5);
    const all = await walk<{ callId: string; startedAt: string }>('/api/calls', 2);
    expect(all.map((c) => c.callId)).toEqual([...started].reverse());
    const defaults = await page<{ callId: string }>('/api/calls');
    expect([defaults.limit, defaults.offset, defaults.items.length]).toEqual([100, 0, 5]);
    expect((await page<{ callId: string }>('/api/calls?offset=5')).items).toEqual([]);

    await expect400('/api/calls?limit=0', /limit/);
    await expect400('/api/calls?limit=1001', /limit/);
    await expect400('/api/calls?offset=-1', /offset/);
    await expect400('/api/calls?cursor=abc', /cursor/);
  });
});

describe('GET /api/files and /api/files/{id}/versions', () => {
  it('pages the latest of each name, every version, and one name’s versions', async () => {
    // The calls above stored generated images; these pages are about the uploads.
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) await uploadOk(t.url, name, name);
    let newest: FileJson | undefined;
    for (let v = 2; v <= 4; v++) newest = await uploadOk(t.url, 'a.txt', `a v${v}`);

    const names = await walk<FileJson>('/api/files?source=uploaded&sort=name', 2);
    expect(names.map((f) => f.name)).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
    const every = await walk<FileJson>('/api/files?source=uploaded&allVersions=true&sort=name', 3);
    expect(every).toHaveLength(8);
    expect(new Set(every.map((f) => f.id)).size).toBe(8);

    const id = (newest as FileJson).id;
    const versions = await walk<FileJson>(`/api/files/${id}/versions`, 3);
    expect(versions.map((f) => f.version)).toEqual([4, 3, 2, 1]);
    const middle = await page<FileJson>(`/api/files/${id}/versions?limit=2&offset=1`);
    expect(middle.items.map((f) => f.version)).toEqual([3, 2]);
    expect(middle.total).toBe(4);

    await expect400('/api/files?limit=0', /limit/);
    await expect400(`/api/files/${id}/versions?limit=0`, /limit/);
    await expect400(`/api/files/${id}/versions?cursor=x`, /cursor/);
  });
});

describe('GET /api/conversations', () => {
  it('pages most recently updated first and says which page it is', async () => {
    // startTestApp has no conversation store: a second app over the same storage with one.
    const { buildApp } = await import('../../src/app.js');
    const { defaultAppConfig } = await import('../../src/config/app-config.js');
    const app = buildApp({
      files: t.storage.files,
      host: t.host,
      config: defaultAppConfig(),
      hostPaths: { data: join(t.dir, 'data') },
      conversations: t.storage.conversations,
    });
    try {
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        const reply = await app.inject({
          method: 'POST',
          url: '/api/conversations',
          payload: { title: `c${i}` },
        });
        expect(reply.statusCode).toBe(201);
        created.push(reply.json<{ id: string }>().id);
      }
      const seen: { id: string; updatedAt: string }[] = [];
      for (let offset = 0; offset < 5; offset += 2) {
        const reply = await app.inject(`/api/conversations?limit=2&offset=${offset}`);
        const body = reply.json<Page<{ id: string; updatedAt: string }>>();
        expect([body.limit, body.offset, body.total]).toEqual([2, offset, 5]);
        expect(body.items.length).toBe(Math.min(2, 5 - offset));
        seen.push(...body.items);
      }
      // Each once, newest first (two made in the same millisecond may come in either order).
      expect(seen.map((c) => c.id).sort()).toEqual([...created].sort());
      const times = seen.map((c) => Date.parse(c.updatedAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect((await app.inject('/api/conversations?limit=0')).statusCode).toBe(400);
      expect((await app.inject('/api/conversations?cursor=x')).statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });
});
