// The example servers over Streamable HTTP, through the host: a remote server never gets host
// paths, so files go as base64 (file_data_base64) or data URIs, and outputs come back inline.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { type HttpServerProcess, startHttp } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host.js';

let dir: string;
let storage: OpenedStorage;
let host: Host;
let owner: string;
const servers: HttpServerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-host-http-'));
  const [legacy, inject] = await Promise.all([
    startHttp('legacy', join(dir, 'remote')),
    startHttp('inject', join(dir, 'remote')),
  ]);
  servers.push(legacy, inject);
  storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  host = createHost({
    config: {
      servers: {
        legacy: { transport: 'http', url: legacy.url.href },
        inject: { transport: 'http', url: inject.url.href, headers: { 'X-Ferry-User': '{{user}}' } },
      },
    },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
  });
  owner = await storage.files.ensureUser('carol');
}, 60_000);

afterAll(async () => {
  await host?.close();
  await storage?.close();
  for (const server of servers) await server.stop();
  await rm(dir, { recursive: true, force: true });
});

it('v2 base64 artifacts and legacy arrays from an HTTP server land in My Files', async () => {
  const v2 = await host.callTool({
    user: { owner, username: 'carol' },
    server: 'legacy',
    tool: 'make_v2_artifacts',
    arguments: { text: 'hello over http' },
  });
  expect(v2.status).toBe('finished');
  expect(v2.forUi.files.length).toBeGreaterThan(0);
  const legacy = await host.callTool({
    user: { owner, username: 'carol' },
    server: 'legacy',
    tool: 'make_legacy_files',
    arguments: { count: 3 },
  });
  expect(legacy.status).toBe('finished');
  expect(legacy.forUi.files).toHaveLength(3);
  for (const file of legacy.forUi.files) {
    expect((await storage.files.stat(owner, { id: file.id })).source).toBe('generated');
  }
});

it('file_data_base64 is injected for an HTTP server and the returned file is stored', async () => {
  const text = 'line one\nline two\n';
  await storage.files.put(owner, 'doc.txt', Readable.from([Buffer.from(text)]));
  const response = await host.callTool({
    user: { owner, username: 'carol' },
    server: 'inject',
    tool: 'analyze_document',
    arguments: { instructions: 'count', filename: 'doc.txt', file_data_base64: 'model-made garbage' },
  });
  expect(response.status).toBe('finished');
  // The tool hashed the bytes it received: they are the uploaded bytes, not the model's string.
  expect(JSON.stringify(response.forModel.results)).toContain(
    createHash('sha256').update(text).digest('hex'),
  );
  expect(JSON.stringify(response.forModel)).not.toContain(Buffer.from(text).toString('base64'));
  expect(response.forUi.files).toHaveLength(1);
});
