// The host end to end with real servers over real transports: the project's example servers
// (stdio, run with tsx) and the published server-everything and server-filesystem, a real
// FileStore (local disk + SQLite), real workspaces. Timeouts are scaled down (0.6 s instead of 30).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type CallEvent, TIMEOUT_NOTICES } from '@ferry/contract';
import { loadStorageConfig, type OpenedStorage, openStorage } from '@ferry/storage';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { isGone } from '@ferry/test-helpers/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host.js';
import type { ToolCallRequest } from '../../src/pipeline/call-tool.js';
import { EVERYTHING_BIN, FILESYSTEM_BIN, REPO_ROOT } from '../support/servers.js';

const example = (name: Parameters<typeof exampleScript>[0]) => ({
  transport: 'stdio' as const,
  command: process.execPath,
  args: [exampleScript(name)],
  cwd: REPO_ROOT,
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const CSV = 'region,sales\nNorth,120\nSouth,80\nEast,45\n';

let dir: string;
let storage: OpenedStorage;
let host: Host;
let shared: string;
const users: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-host-'));
  shared = join(dir, 'shared');
  await mkdir(shared);
  await writeFile(join(shared, 'hello.txt'), 'hello from the filesystem server\n');
  storage = await openStorage(loadStorageConfig({ env: { FERRY_DATA_DIR: join(dir, 'data') } }));
  host = createHost({
    config: {
      servers: {
        report: example('report'),
        merge: example('merge'),
        // --test-tools: hang and crash, as test/ferry.test-config.json runs it.
        slow: {
          ...example('slow'),
          args: [...example('slow').args, '--test-tools'],
          timeouts: { timeoutSeconds: 0.6, hardCapSeconds: 20 },
        },
        everything: { transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] },
        filesystem: { transport: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, shared] },
      },
    },
    files: storage.files,
    workspacesRoot: join(dir, 'workspaces'),
    downloadUrl: (id, token) => `http://127.0.0.1:1/api/files/${id}/content?token=${token}`,
    pool: { onStderr: () => {} },
  });
  for (const name of ['alice', 'bob']) users[name] = await storage.files.ensureUser(name);
}, 60_000);

afterAll(async () => {
  await host?.close();
  await storage?.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(username: string, request: Omit<ToolCallRequest, 'user'>) {
  const events: CallEvent[] = [];
  const response = await host.callTool(
    { ...request, user: { owner: users[username] as string, username } },
    (event) => events.push(event),
  );
  return { response, events };
}

async function readStored(username: string, id: string): Promise<Buffer> {
  const { stream } = await storage.files.get(users[username] as string, { id });
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function upload(username: string, name: string, text: string) {
  return storage.files.put(users[username] as string, name, Readable.from([Buffer.from(text)]), {
    mime: 'text/csv',
  });
}

describe('the report example over stdio', () => {
  it('injects the uploaded CSV by name and stores every output with its bytes, type and hints', async () => {
    await upload('alice', 'sales.csv', CSV);
    const { response, events } = await call('alice', {
      server: 'report',
      tool: 'csv_report',
      arguments: { filename: 'sales.csv', username: 'admin', title: 'Q3', evil: 'dropped' },
    });
    expect(response.status).toBe('finished');

    const prepared = events.find((e) => e.type === 'arguments_prepared');
    expect(prepared).toMatchObject({ transcript: { filename: 'sales.csv', username: 'alice', title: 'Q3' } });
    expect(prepared?.type === 'arguments_prepared' && prepared.dropped.map((d) => d.argument)).toEqual([
      'evil',
    ]);

    const names = response.forUi.files.map((f) => f.name).sort();
    expect(names).toEqual(['chart.png', 'notes.md', 'report.html']);
    expect(response.forUi.display).toMatchObject({ openCanvas: true, primaryFile: 'report.html' });
    const notes = response.forUi.files.find((f) => f.name === 'notes.md');
    expect(notes).toMatchObject({ deferred: true });
    // The deferred artifact's reason and next actions are kept with the file (v2.1 §7).
    const stored = await storage.files.stat(users.alice as string, { id: notes?.id as string });
    expect(stored.info).toMatchObject({ deferredReason: 'needs_editing', nextActions: expect.any(Array) });
    expect(stored.info?.nextActions?.length).toBeGreaterThan(0);
    expect(response.forUi.files.find((f) => f.name === 'chart.png')).toMatchObject({
      mime: 'image/png',
      viewer: 'image',
    });

    // The bytes in My Files are the bytes the tool wrote into alice's workspace (the spoofed
    // username did not move them elsewhere).
    const workspace = await host.workspaces.forUser('alice');
    for (const name of ['report.html', 'chart.png']) {
      const onDisk = await readFile(join(workspace.hostDir, name));
      const stored = await storage.files.stat(users.alice as string, { name });
      expect(stored.sha256).toBe(sha256(onDisk));
      expect(stored.source).toBe('generated');
    }
    expect((await readFile(join(workspace.hostDir, 'report.html'), 'utf8')).includes('North')).toBe(true);
    // The input was materialized read-only for the tool, and the model sees names only.
    expect((await readFile(join(workspace.inputDir, 'sales.csv'), 'utf8')).toString()).toBe(CSV);
    expect(JSON.stringify(response.forModel)).not.toMatch(/\/input_files\/|base64|token=/);
    expect(response.forModel.files.map((f) => f.name).sort()).toEqual([
      'chart.png',
      'notes.md',
      'report.html',
    ]);
  });

  it('two users calling the same server never see each other’s workspace or files', async () => {
    await upload('bob', 'sales.csv', 'region,sales\nWest,7\n');
    const [a, b] = await Promise.all([
      call('alice', { server: 'report', tool: 'csv_report', arguments: { filename: 'sales.csv' } }),
      call('bob', { server: 'report', tool: 'csv_report', arguments: { filename: 'sales.csv' } }),
    ]);
    expect([a.response.status, b.response.status]).toEqual(['finished', 'finished']);
    const aliceWs = await host.workspaces.forUser('alice');
    const bobWs = await host.workspaces.forUser('bob');
    expect(aliceWs.hostDir).not.toBe(bobWs.hostDir);
    expect(await readFile(join(bobWs.hostDir, 'report.html'), 'utf8')).toContain('West');
    expect(await readFile(join(bobWs.hostDir, 'report.html'), 'utf8')).not.toContain('North');
    const bobFiles = await storage.files.list(users.bob as string, { allVersions: true });
    const bobIds = new Set(bobFiles.items.map((f) => f.id));
    for (const file of a.response.forUi.files) expect(bobIds.has(file.id)).toBe(false);
    // Different processes: the pool keeps one per (server, user).
    const alicePid = (await host.pool.get('report', 'alice')).pid;
    const bobPid = (await host.pool.get('report', 'bob')).pid;
    expect(alicePid).toBeTypeOf('number');
    expect(alicePid).not.toBe(bobPid);
  });

  it('filenames hands every named file to the merge tool', async () => {
    await upload('alice', 'a.csv', 'k,v\n1,2\n');
    await upload('alice', 'b.csv', 'k,v\n3,4\n');
    const { response } = await call('alice', {
      server: 'merge',
      tool: 'merge_csv',
      arguments: { filenames: ['a.csv', 'b.csv'] },
    });
    expect(response.status).toBe('finished');
    const merged = await storage.files.get(users.alice as string, { name: 'merged.csv' });
    const chunks: Buffer[] = [];
    for await (const chunk of merged.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('k,v\n1,2\n3,4\n');
  });
});

describe('the watchdog with real processes (timeout scaled to 0.6 s)', () => {
  it('kills a hanging tool at the timeout, after the three notices in order', async () => {
    const pid = (await host.pool.get('slow', 'alice')).pid as number;
    const { response, events } = await call('alice', { server: 'slow', tool: 'hang', arguments: {} });
    expect(response.status).toBe('failed');
    expect(response.forUi.error?.meta_data).toMatchObject({ error_code: 'E_TIMEOUT', retryable: true });
    const notices = events.filter((e) => e.type === 'notice' && e.kind === 'slow');
    expect(notices.map((e) => (e.type === 'notice' ? e.message : ''))).toEqual(
      TIMEOUT_NOTICES.map((n) => n.message),
    );
    expect(events.at(-1)).toMatchObject({ type: 'failed', code: 'E_TIMEOUT' });
    expect(await isGone(pid)).toBe(true);
  });

  it('progress extends a call past the timeout', async () => {
    // 6 steps of 0.25 s = 1.5 s in all, longer than the 0.6 s timeout, but never 0.6 s silent.
    const { response, events } = await call('alice', {
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 1.5, steps: 6 },
    });
    expect(response.status).toBe('finished');
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(5);
    expect(events.some((e) => e.type === 'notice' && e.kind === 'timeout')).toBe(false);
  });

  it('restarts a crashed server on the next call', async () => {
    const before = (await host.pool.get('slow', 'bob')).pid;
    const crashed = await call('bob', { server: 'slow', tool: 'crash', arguments: {} });
    expect(crashed.response.status).toBe('failed');
    const again = await call('bob', {
      server: 'slow',
      tool: 'slow_task',
      arguments: { seconds: 0, steps: 1 },
    });
    expect(again.response.status).toBe('finished');
    const after = (await host.pool.get('slow', 'bob')).pid;
    expect(after).not.toBe(before);
  });
});

describe('published servers through the pipeline', () => {
  it('server-everything echo', async () => {
    const { response } = await call('alice', {
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'ferry' },
    });
    expect(response.status).toBe('finished');
    expect(JSON.stringify(response.forModel.results)).toContain('ferry');
  });

  it('server-everything resource links are read with resources/read and stored with their bytes', async () => {
    const { response, events } = await call('alice', {
      server: 'everything',
      tool: 'get-resource-links',
      arguments: { count: 2 },
    });
    expect(response.status).toBe('finished');
    expect(response.forUi.unstored).toEqual([]);
    const files = response.forUi.files;
    expect(files.map((f) => [f.name, f.mime])).toEqual([
      ['Blob Resource 1.txt', 'text/plain'],
      ['Text Resource 2.txt', 'text/plain'],
    ]);
    // Blob: the server's base64, decoded; text: the text itself (timestamps vary, the rest not).
    const blob = (await readStored('alice', files[0]?.id as string)).toString('utf8');
    const text = (await readStored('alice', files[1]?.id as string)).toString('utf8');
    expect(blob).toMatch(/^Resource 1: This is a base64 blob created at \S/);
    expect(text).toMatch(/^Resource 2: This is a plaintext resource created at \S/);
    expect(events.filter((e) => e.type === 'file_stored')).toHaveLength(2);
  });

  it('server-filesystem reads a file in its allowed directory', async () => {
    const { response } = await call('alice', {
      server: 'filesystem',
      tool: 'read_text_file',
      arguments: { path: join(shared, 'hello.txt') },
    });
    expect(response.status).toBe('finished');
    expect(JSON.stringify(response.forModel.results)).toContain('hello from the filesystem server');
  });
});
