// createHost's workspaceDetection reaches the workspaces: 'walk' walks on every call, the default
// watches (the tracker's first walk is the first call's "before"; every call's changes are events).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host.js';

let dir: string;
let storage: OpenedStorage;
const hosts: Host[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-detection-setting-'));
  storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
});

afterAll(async () => {
  for (const host of hosts) await host.close();
  await storage?.close();
  await rm(dir, { recursive: true, force: true });
});

function hostWith(name: string, workspaceDetection?: 'watch' | 'walk'): Host {
  const host = createHost({
    config: { servers: {} },
    files: storage.files,
    workspacesRoot: join(dir, name),
    downloadUrl: () => 'http://127.0.0.1:1/unused',
    ...(workspaceDetection ? { workspaceDetection } : {}),
  });
  hosts.push(host);
  return host;
}

/** Two calls' windows in a row, each seeing the file written during it; their methods. */
async function twoCalls(host: Host): Promise<string[]> {
  const workspace = await host.workspaces.forUser('alice');
  const methods: string[] = [];
  for (const name of ['first.txt', 'second.txt']) {
    const window = await workspace.startDetection();
    await writeFile(join(workspace.hostDir, name), name);
    const changes = await window.finish();
    expect(changes.paths).toEqual([join(workspace.hostDir, name)]);
    methods.push(changes.method);
  }
  return methods;
}

it("'walk' walks on every call; the default reads the change tracker's events", async () => {
  expect(await twoCalls(hostWith('walk', 'walk'))).toEqual(['walk', 'walk']);
  expect(await twoCalls(hostWith('default'))).toEqual(['events', 'events']);
});
