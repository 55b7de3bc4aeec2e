// The workspace as the launcher prepares and watches it: quota before and during a run, a link
// planted where input_files/ belongs, the network switch.

import { lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher } from '../src/bubblewrap-launcher.js';
import { hostListener, hostTempDir, requireSandbox, run, shServer as sh } from './support/run-launch.js';

let dir: string;
let root: string;
let listener: Server;
let port: number;
beforeAll(async () => {
  await requireSandbox();
  dir = await hostTempDir('ferry-workspace-');
  root = join(dir, 'workspaces');
  ({ server: listener, port } = await hostListener('127.0.0.1', 'hello from the host\n'));
});
afterAll(async () => {
  listener?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the workspace quota', () => {
  it('refuses to start a server while the workspace is over quota (E_QUOTA_EXCEEDED with the numbers)', async () => {
    const launcher = createBubblewrapLauncher({
      workspacesRoot: root,
      limits: { workspaceBytes: 64 * 1024 },
    });
    await mkdir(join(root, 'carol'), { recursive: true, mode: 0o700 });
    await writeFile(join(root, 'carol', 'big.bin'), Buffer.alloc(256 * 1024, 1));
    const error = await launcher(sh('true'), 'carol').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FerryError);
    expect(error).toMatchObject({
      code: 'E_QUOTA_EXCEEDED',
      details: { limit_bytes: 64 * 1024, server: 'sh' },
    });
    expect((error as FerryError).details.used_bytes).toBeGreaterThan(64 * 1024);
    expect((error as FerryError).message).toMatch(
      /workspace of carol holds \d+ bytes, over its quota of 65536/,
    );
    await rm(join(root, 'carol', 'big.bin'));
    expect((await run(await launcher(sh('echo ok'), 'carol'))).stdout).toBe('ok\n');
  });

  it('stops a running server that fills the workspace past the quota, and says why on stderr', async () => {
    const launcher = createBubblewrapLauncher({
      workspacesRoot: root,
      limits: { workspaceBytes: 1024 * 1024, quotaCheckMs: 100 },
    });
    const started = Date.now();
    const ran = await run(
      await launcher(sh('head -c 3000000 /dev/zero > /tmp/dave/fill.bin; sleep 30; echo survived'), 'dave'),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ran.stdout).not.toContain('survived');
    expect(ran.stderr).toMatch(
      /\[ferry\/sandbox\] E_QUOTA_EXCEEDED: the workspace holds \d+ KiB, over its quota of 1024 KiB/,
    );
    expect(ran.code).not.toBe(0);
  });
});

describe('preparing the workspace', () => {
  it('replaces a symlink planted as input_files/ (bwrap would bind its target) by a real directory', async () => {
    const secret = join(dir, 'secret');
    await mkdir(secret);
    await writeFile(join(secret, 'key.txt'), 'secret');
    await mkdir(join(root, 'erin'), { recursive: true, mode: 0o700 });
    await symlink(secret, join(root, 'erin', 'input_files'));
    const launcher = createBubblewrapLauncher({ workspacesRoot: root });
    const ran = await run(await launcher(sh('ls -A /tmp/erin/input_files; echo end'), 'erin'));
    expect(ran.stdout).toBe('end\n');
    expect((await lstat(join(root, 'erin', 'input_files'))).isDirectory()).toBe(true);
    expect(await readFile(join(secret, 'key.txt'), 'utf8')).toBe('secret');
  });
});

describe('the network', () => {
  const connect = `exec 3<>/dev/tcp/127.0.0.1/${'PORT'} && head -1 <&3 || echo refused`;

  it('is only a loopback of its own without network: true; the host’s listener is unreachable', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root });
    const server = {
      ...sh(''),
      command: '/bin/bash',
      args: [
        '-c',
        `${connect.replace('PORT', String(port))} 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '`,
      ],
    };
    const ran = await run(await launcher(server, 'frank'));
    expect(ran.stdout).toBe('refused\nlo\n');
  });

  it('is never the host’s: network: true reaches nothing on the host either (sandbox-network.test.ts), and a launcher may forbid it', async () => {
    const script = `${connect.replace('PORT', String(port))} 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | sort`;
    const server = { ...sh('', { network: true }), command: '/bin/bash', args: ['-c', script] };
    const allowed = createBubblewrapLauncher({ workspacesRoot: root });
    expect((await run(await allowed(server, 'frank'))).stdout).toBe('refused\nlo\ntap0\n');
    const denied = createBubblewrapLauncher({ workspacesRoot: root, network: false });
    expect((await run(await denied(server, 'frank'))).stdout).toBe('refused\nlo\n');
  });
});
