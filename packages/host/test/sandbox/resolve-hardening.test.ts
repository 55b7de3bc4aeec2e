// resolveWorkspaceFile's hardening for tools that run sandboxed or not: hard links, size while
// streaming, refusals logged with the user.
import { appendFile, link, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  resolveWorkspaceFile,
  type WorkspaceFileRefusal,
} from '../../src/workspace/resolve-workspace-file.js';
import { createWorkspaces, type Workspace, type Workspaces } from '../../src/workspace/workspaces.js';

let dir: string;
let workspaces: Workspaces;
let ws: Workspace;
let logged: WorkspaceFileRefusal[];
const log = (refusal: WorkspaceFileRefusal) => logged.push(refusal);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-hardening-'));
  workspaces = createWorkspaces({ root: join(dir, 'ws'), toolRoot: '/tmp' });
  ws = await workspaces.forUser('alice');
  await writeFile(join(dir, 'outside.txt'), 'outside secret');
  logged = [];
});
afterEach(async () => {
  await workspaces.close();
  await rm(dir, { recursive: true, force: true });
});

async function read(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

async function materialize(name: string, content: string): Promise<string> {
  return ws.materializeInput({
    name,
    fileId: `id-${name}`,
    size: Buffer.byteLength(content),
    open: async () => Readable.from([Buffer.from(content)]),
  });
}

describe('hard links', () => {
  it('refuses a file hard-linked to one outside the workspace, and logs it with the user', async () => {
    await link(join(dir, 'outside.txt'), join(ws.hostDir, 'out.txt'));
    const result = await resolveWorkspaceFile(ws, '/tmp/alice/out.txt', { log });
    expect(result).toMatchObject({ ok: false, code: 'E_INVALID_PATH' });
    if (!result.ok)
      expect(result.error.meta_data.details).toMatchObject({ attempted_path: '/tmp/alice/out.txt' });
    expect(logged).toEqual([
      {
        user: 'alice',
        toolPath: '/tmp/alice/out.txt',
        code: 'E_INVALID_PATH',
        reason: expect.stringMatching(/2 hard links/),
      },
    ]);
  });

  it('accepts a link to the user’s own materialized input, but not with a third link elsewhere', async () => {
    await materialize('sales.csv', 'a,b\n1,2\n');
    await link(join(ws.inputDir, 'sales.csv'), join(ws.hostDir, 'copy.csv'));
    const own = await resolveWorkspaceFile(ws, '/tmp/alice/copy.csv', { log });
    if (!own.ok) throw new Error(own.reason);
    expect(await read(own.file.createReadStream())).toBe('a,b\n1,2\n');

    await link(join(dir, 'outside.txt'), join(ws.inputDir, 'planted.txt'));
    await link(join(dir, 'outside.txt'), join(ws.hostDir, 'planted.txt'));
    expect(await resolveWorkspaceFile(ws, '/tmp/alice/planted.txt', { log })).toMatchObject({ ok: false });
    // Nor the link inside input_files/ itself.
    expect(await resolveWorkspaceFile(ws, '/tmp/alice/input_files/planted.txt', { log })).toMatchObject({
      ok: false,
    });
    expect(logged.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/3 hard links/),
      expect.stringMatching(/3 hard links/),
    ]);
  });
});

describe('size', () => {
  it('refuses a file over maxBytes before reading it: E_FILE_TOO_LARGE with the §12.3 fields, logged', async () => {
    // 2 GiB, sparse: nothing of it is on disk, and nothing of it may be read.
    await writeFile(join(ws.hostDir, 'big.bin'), '');
    await truncate(join(ws.hostDir, 'big.bin'), 2 * 1024 ** 3);
    const result = await resolveWorkspaceFile(ws, '/tmp/alice/big.bin', { maxBytes: 1024, log });
    expect(result).toMatchObject({ ok: false, code: 'E_FILE_TOO_LARGE' });
    if (!result.ok) {
      expect(result.error.meta_data).toMatchObject({
        error_code: 'E_FILE_TOO_LARGE',
        details: { file_size_bytes: 2 * 1024 ** 3, current_limit_bytes: 1024 },
      });
    }
    expect(logged).toMatchObject([{ user: 'alice', code: 'E_FILE_TOO_LARGE' }]);
  });

  it('streams exactly the size checked at open, however the file grows afterwards', async () => {
    await writeFile(join(ws.hostDir, 'grow.txt'), '0123456789');
    const result = await resolveWorkspaceFile(ws, '/tmp/alice/grow.txt', { maxBytes: 10, log });
    if (!result.ok) throw new Error(result.reason);
    await appendFile(join(ws.hostDir, 'grow.txt'), 'x'.repeat(1024 * 1024));
    expect(await read(result.file.createReadStream())).toBe('0123456789');
  });

  it('fails the stream when the file shrank after the check, instead of storing a torn copy', async () => {
    await writeFile(join(ws.hostDir, 'shrink.txt'), 'x'.repeat(100_000));
    const result = await resolveWorkspaceFile(ws, '/tmp/alice/shrink.txt');
    if (!result.ok) throw new Error(result.reason);
    await truncate(join(ws.hostDir, 'shrink.txt'), 10);
    await expect(read(result.file.createReadStream())).rejects.toThrow(/changed while it was being read/);
  });

  it('an empty file is an empty stream', async () => {
    await writeFile(join(ws.hostDir, 'empty.txt'), '');
    const result = await resolveWorkspaceFile(ws, '/tmp/alice/empty.txt');
    if (!result.ok) throw new Error(result.reason);
    expect(await read(result.file.createReadStream())).toBe('');
  });
});

describe('logging', () => {
  it('logs refusals (to stderr by default), never a file that is simply missing', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(await resolveWorkspaceFile(ws, '/tmp/alice/missing.txt')).toMatchObject({
        code: 'E_FILE_NOT_FOUND',
      });
      expect(warn).not.toHaveBeenCalled();
      await resolveWorkspaceFile(ws, '/etc/passwd');
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /refused a workspace file of user alice \(E_INVALID_PATH\): "\/etc\/passwd" is outside/,
        ),
      );
    } finally {
      warn.mockRestore();
    }
  });
});
