// The sandbox's modes and limits as the host's pipeline reports them (E_SANDBOX_UNAVAILABLE,
// E_QUOTA_EXCEEDED envelopes), and the cleanup of workspaces, with the real attack server.
import { chmod, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { clearSessionFiles, removeUserWorkspace, type SandboxWarning } from '@ferry/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTACK_SERVER,
  expectLegitimateWork,
  openSandboxedHost,
  readStored,
  type SandboxedHost,
} from './support/sandboxed-host.js';

const BWRAP_FAILURE = 'bwrap: setting up uid map: Permission denied';
let brokenDir: string;
let brokenBwrap: string;
beforeAll(async () => {
  // What bubblewrap prints on a kernel or container that forbids unprivileged user namespaces.
  brokenDir = await mkdtemp(join(tmpdir(), 'ferry-broken-bwrap-'));
  brokenBwrap = join(brokenDir, 'bwrap');
  await writeFile(brokenBwrap, `#!/bin/sh\necho '${BWRAP_FAILURE}' >&2\nexit 1\n`);
  await chmod(brokenBwrap, 0o755);
});
afterAll(() => rm(brokenDir, { recursive: true, force: true }));

describe('when bubblewrap cannot create its namespaces', () => {
  it('sandbox: required refuses to start the server: the call fails with E_SANDBOX_UNAVAILABLE, explained', async () => {
    const env = await openSandboxedHost({ users: ['alice'], launcher: { bwrapPath: brokenBwrap } });
    try {
      const { response, events } = await env.call('alice', 'attack', 'write_workspace', {
        name: 'a',
        content: 'a',
      });
      expect(response.status).toBe('failed');
      expect(response.forUi.error?.meta_data).toMatchObject({
        error_code: 'E_SANDBOX_UNAVAILABLE',
        reason: 'SandboxUnavailable',
        retryable: false,
        details: { server: 'attack', cause: expect.stringContaining(BWRAP_FAILURE) },
      });
      expect(response.forModel.error?.message).toMatch(/needs the sandbox, which is not available/);
      expect(events.at(-1)).toMatchObject({ type: 'failed', code: 'E_SANDBOX_UNAVAILABLE' });
      await expect(env.host.listTools('attack', 'alice')).rejects.toBeInstanceOf(FerryError);
    } finally {
      await env.close();
    }
  });

  it('sandbox: auto runs the server unsandboxed, warns, and still finds its files (host-path tool root)', async () => {
    const warnings: SandboxWarning[] = [];
    const env = await openSandboxedHost({
      users: ['alice'],
      servers: { attack: { ...ATTACK_SERVER, sandbox: 'auto' } },
      launcher: { mode: 'auto', bwrapPath: brokenBwrap, onWarning: (warning) => warnings.push(warning) },
    });
    try {
      await expectLegitimateWork(env, 'alice');
      expect(warnings[0]).toMatchObject({
        server: 'attack',
        user: 'alice',
        message: expect.stringMatching(/WITHOUT a sandbox/),
      });
      const { results } = await env.call('alice', 'attack', 'inspect');
      expect(results.uid).toBe(process.getuid?.());
      // The tool finds its workspace where v2.1 §5.1 says, /tmp/alice: a link to the host's.
      expect((results.env as Record<string, string>).FERRY_WORKSPACE_ROOT).toBeUndefined();
      expect(await readlink('/tmp/alice')).toBe(join(env.workspacesRoot, 'alice'));
    } finally {
      await env.close();
      await rm('/tmp/alice', { force: true });
    }
  });
});

describe('the workspace quota through the host', () => {
  let env: SandboxedHost;
  beforeAll(async () => {
    env = await openSandboxedHost({
      users: ['quentin'],
      servers: { attack: ATTACK_SERVER, quota: ATTACK_SERVER },
      launcher: { serverLimits: { quota: { workspaceBytes: 4 * 1024 ** 2, quotaCheckMs: 100 } } },
    });
  });
  afterAll(() => env?.close());

  it('filling the workspace past the quota stops the server; the next start is refused with E_QUOTA_EXCEEDED', async () => {
    // 12 MiB into the workspace, then time for the watcher (every 100 ms) to notice.
    const filled = await env.call('quentin', 'quota', 'run', {
      command: '/bin/sh',
      args: ['-c', 'head -c 12M /dev/zero > /tmp/quentin/fill.bin; sleep 8; echo survived'],
    });
    // Killed in the middle of the call (the tool never answered): the call says why.
    expect(filled.response.forUi.error?.meta_data).toMatchObject({
      error_code: 'E_QUOTA_EXCEEDED',
      details: { server: 'quota', scope: 'workspace', limit_bytes: 4 * 1024 ** 2 },
    });
    expect(filled.response.forModel.error?.message).toMatch(/was stopped: .*over its quota/);
    const refused = await env.call('quentin', 'quota', 'write_workspace', { name: 'x.txt', content: 'x' });
    expect(refused.response.forUi.error?.meta_data).toMatchObject({
      error_code: 'E_QUOTA_EXCEEDED',
      details: { server: 'quota', limit_bytes: 4 * 1024 ** 2, used_bytes: expect.any(Number) },
    });
    expect(refused.response.forModel.error?.message).toMatch(/over its quota/);
    // Ending the session empties the workspace; then the same server works again.
    await clearSessionFiles(await env.host.workspaces.forUser('quentin'));
    await expectLegitimateWork(env, 'quentin', 'quota');
  });
});

describe('cleanup', () => {
  let env: SandboxedHost;
  beforeAll(async () => {
    env = await openSandboxedHost({ users: ['alice', 'bob'] });
  });
  afterAll(() => env?.close());

  it('session end empties the workspace; what was stored stays in My Files; the server goes on working', async () => {
    const { response } = await env.call('alice', 'attack', 'write_workspace', {
      name: 'keep.txt',
      content: 'kept',
    });
    const stored = response.forUi.files[0];
    await env.call('alice', 'attack', 'fs_op', {
      op: 'write',
      path: '/tmp/alice/scratch.tmp',
      content: 'not stored',
    });
    const ws = await env.host.workspaces.forUser('alice');
    expect((await readdir(ws.hostDir)).sort()).toEqual(['input_files', 'keep.txt', 'scratch.tmp']);
    // keep.txt and scratch.tmp; input_files/ was empty (emptied in place, not counted).
    expect(await clearSessionFiles(ws)).toEqual({ removed: 2 });
    // input_files/ is emptied in place: the running sandbox binds that very directory.
    expect(await readdir(ws.hostDir)).toEqual(['input_files']);
    expect(await readdir(join(ws.hostDir, 'input_files'))).toEqual([]);
    expect((await readStored(env, 'alice', stored?.id as string)).toString()).toBe('kept');
    await expectLegitimateWork(env, 'alice');
  });

  it('user deletion removes the workspace, and only that user’s', async () => {
    await expectLegitimateWork(env, 'bob');
    await expectLegitimateWork(env, 'alice');
    // The user's servers stop first: a running sandbox keeps its bind of the removed directory.
    await (await env.host.pool.get('attack', 'alice')).kill('user deleted');
    expect(await removeUserWorkspace('alice', { workspacesRoot: env.workspacesRoot })).toBe(true);
    // (Dot entries are the host's own, such as the change tracker's.)
    expect((await readdir(env.workspacesRoot)).filter((name) => !name.startsWith('.'))).toEqual(['bob']);
    expect((await readdir(join(env.workspacesRoot, 'bob'))).length).toBeGreaterThan(1);
  });
});
