import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveWorkspaceFile } from '../../src/workspace/resolve-workspace-file.js';
import { createWorkspaces, type Workspace } from '../../src/workspace/workspaces.js';

let dir: string;
let ws: Workspace;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-resolve-'));
  ws = await createWorkspaces({ root: join(dir, 'ws') }).forUser('alice');
  await writeFile(join(dir, 'secret.txt'), 'secret');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function read(result: Awaited<ReturnType<typeof resolveWorkspaceFile>>): Promise<string> {
  if (!result.ok) throw new Error(result.reason);
  const chunks: Buffer[] = [];
  for await (const chunk of result.file.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

async function expectInvalidPath(toolPath: string, reason: RegExp) {
  const result = await resolveWorkspaceFile(ws, toolPath);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.code).toBe('E_INVALID_PATH');
  expect(result.reason).toMatch(reason);
  expect(result.error.meta_data).toMatchObject({
    error_code: 'E_INVALID_PATH',
    reason: 'SecurityViolation',
    details: { attempted_path: toolPath, allowed_prefix: `${ws.toolDir}/` },
  });
}

describe('resolveWorkspaceFile', () => {
  it('opens a regular file inside the workspace, also in subdirectories', async () => {
    await mkdir(join(ws.hostDir, 'out'));
    await writeFile(join(ws.hostDir, 'out', 'r.txt'), 'report');
    const result = await resolveWorkspaceFile(ws, `${ws.toolDir}/out/./r.txt`);
    expect(result).toMatchObject({ ok: true, file: { size: 6, hostPath: join(ws.hostDir, 'out', 'r.txt') } });
    expect(await read(result)).toBe('report');
  });

  it('refuses ../ escapes and absolute paths elsewhere', async () => {
    await expectInvalidPath(`${ws.toolDir}/../../secret.txt`, /outside/);
    await expectInvalidPath(join(dir, 'secret.txt'), /outside/);
    await expectInvalidPath('/etc/passwd', /outside/);
    await expectInvalidPath('relative.txt', /not absolute/);
    await expectInvalidPath(`${ws.toolDir}/a\0b`, /NUL/);
    await expectInvalidPath(ws.toolDir, /workspace itself/);
  });

  it('refuses a symlink to a file outside, and a symlinked directory leading outside', async () => {
    await symlink(join(dir, 'secret.txt'), join(ws.hostDir, 'link.txt'));
    await expectInvalidPath(`${ws.toolDir}/link.txt`, /symbolic link/);
    await symlink(dir, join(ws.hostDir, 'up'));
    await expectInvalidPath(`${ws.toolDir}/up/secret.txt`, /leaves the workspace/);
  });

  it('refuses even a symlink that points inside (the file must be the real thing)', async () => {
    await writeFile(join(ws.hostDir, 'real.txt'), 'x');
    await symlink(join(ws.hostDir, 'real.txt'), join(ws.hostDir, 'alias.txt'));
    await expectInvalidPath(`${ws.toolDir}/alias.txt`, /symbolic link/);
  });

  it('refuses FIFOs (without blocking), directories and sockets', async () => {
    execFileSync('mkfifo', [join(ws.hostDir, 'pipe')]);
    await expectInvalidPath(`${ws.toolDir}/pipe`, /FIFO/);
    await mkdir(join(ws.hostDir, 'adir'));
    await expectInvalidPath(`${ws.toolDir}/adir`, /directory/);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(ws.hostDir, 'sock'), resolve));
    try {
      await expectInvalidPath(`${ws.toolDir}/sock`, /socket/);
    } finally {
      server.close();
    }
  });

  it('a missing file is E_FILE_NOT_FOUND, not a path violation', async () => {
    const result = await resolveWorkspaceFile(ws, `${ws.toolDir}/nope/x.txt`);
    expect(result).toMatchObject({ ok: false, code: 'E_FILE_NOT_FOUND' });
    const direct = await resolveWorkspaceFile(ws, `${ws.toolDir}/x.txt`);
    expect(direct).toMatchObject({ ok: false, code: 'E_FILE_NOT_FOUND' });
  });

  it('works on the sandbox view: tool paths under /tmp/<username> map to the host directory', async () => {
    const sandboxed = await createWorkspaces({ root: join(dir, 'ws'), toolRoot: '/tmp' }).forUser('alice');
    await writeFile(join(sandboxed.hostDir, 'chart.png'), 'png');
    const result = await resolveWorkspaceFile(sandboxed, '/tmp/alice/chart.png');
    expect(await read(result)).toBe('png');
    const outside = await resolveWorkspaceFile(sandboxed, join(sandboxed.hostDir, 'chart.png'));
    expect(outside).toMatchObject({ ok: false, code: 'E_INVALID_PATH' });
    if (!outside.ok) expect(outside.error.meta_data.details.allowed_prefix).toBe('/tmp/alice/');
  });

  it('close() releases the handle when nothing was read; a stream can be taken once', async () => {
    await writeFile(join(ws.hostDir, 'a.txt'), 'a');
    const result = await resolveWorkspaceFile(ws, `${ws.toolDir}/a.txt`);
    if (!result.ok) throw new Error(result.reason);
    await result.file.close();
    await result.file.close();
    expect(() => result.file.createReadStream()).toThrow(/already/);
  });
});
