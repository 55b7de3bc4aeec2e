// Which servers run sandboxed, which are refused and which run without, with the reasons given.
import { mkdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FerryError, type SandboxMode } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher, type SandboxWarning } from '../src/bubblewrap-launcher.js';
import type { SandboxServer } from '../src/launch-spec.js';
import { BWRAP_FAILURE, fakeBwrap } from './support/fake-bwrap.js';
import { hostTempDir, requireSandbox, run, shServer } from './support/run-launch.js';

let dir: string;
let root: string;
let broken: string;
beforeAll(async () => {
  await requireSandbox();
  dir = await hostTempDir('ferry-modes-');
  root = join(dir, 'workspaces');
  await mkdir(root);
  broken = await fakeBwrap();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const server = (sandbox: SandboxMode, extra: Partial<SandboxServer> = {}) =>
  shServer('echo "root=$FERRY_WORKSPACE_ROOT home=$HOME"', { name: 'echo', sandbox, ...extra });

function expectFerryError(error: unknown, code: string): FerryError {
  expect(error).toBeInstanceOf(FerryError);
  expect((error as FerryError).code).toBe(code);
  return error as FerryError;
}

describe('modes', () => {
  it('required without a usable bubblewrap: E_SANDBOX_UNAVAILABLE naming the server and bwrap’s own message', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, mode: 'required', bwrapPath: broken });
    const error = expectFerryError(
      await launcher(server('auto'), 'alice').catch((e) => e),
      'E_SANDBOX_UNAVAILABLE',
    );
    expect(error.message).toMatch(/MCP server "echo" needs the sandbox/);
    expect(error.details).toMatchObject({ server: 'echo', cause: expect.stringContaining(BWRAP_FAILURE) });
    expect(error.toEnvelope().meta_data.details.suggestion).toMatch(/Install bubblewrap/);
    expect(await launcher.toolRootFor(server('auto'))).toBe('/tmp');
    // A server that asks for required is refused the same way under an auto launcher.
    const auto = createBubblewrapLauncher({ workspacesRoot: root, bwrapPath: broken, onWarning: () => {} });
    expectFerryError(await auto(server('required'), 'alice').catch((e) => e), 'E_SANDBOX_UNAVAILABLE');
  });

  it('auto without a usable bubblewrap: runs unsandboxed, warns every launch, and the tool still finds /tmp/<user>', async () => {
    const warnings: SandboxWarning[] = [];
    const launcher = createBubblewrapLauncher({
      workspacesRoot: root,
      bwrapPath: broken,
      onWarning: (warning) => warnings.push(warning),
    });
    const user = `unsandboxed-${process.pid}`;
    const spec = await launcher(
      server('auto', {
        args: ['-c', `echo "root=$FERRY_WORKSPACE_ROOT"; echo seed > /tmp/${user}/stats.json && echo wrote`],
      }),
      user,
    );
    expect(spec.command).toBe('/bin/sh');
    try {
      expect((await run(spec)).stdout).toBe('root=\nwrote\n');
      // v2.1 §5.1's path is a link to the workspace Ferry reads.
      expect(await readFile(join(root, user, 'stats.json'), 'utf8')).toBe('seed\n');
      expect(await readlink(`/tmp/${user}`)).toBe(join(await realpath(root), user));
      expect(warnings).toEqual([
        { server: 'echo', user, message: expect.stringMatching(/WITHOUT a sandbox.*uid map/) },
      ]);
      expect((await launcher.probe()).effectiveMode).toBe('unsandboxed');
      expect(await launcher.toolRootFor(server('auto'))).toBe('/tmp');
    } finally {
      await rm(`/tmp/${user}`, { force: true });
    }
  });

  it('unsandboxed, a /tmp/<user> that is not Ferry’s refuses the launch with the reason', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, mode: 'off', onWarning: () => {} });
    const user = `taken-${process.pid}`;
    await mkdir(`/tmp/${user}`);
    try {
      const error = expectFerryError(
        await launcher(server('auto'), user).catch((e) => e),
        'E_TOOL_UNAVAILABLE',
      );
      expect(error.message).toMatch(new RegExp(`/tmp/${user} exists and is not a link Ferry made`));
    } finally {
      await rm(`/tmp/${user}`, { recursive: true, force: true });
    }
  });

  it('a server’s own off is honoured only when allowServerOff lets it; a required launcher sandboxes it anyway', async () => {
    const warnings: SandboxWarning[] = [];
    const strictByDefault = createBubblewrapLauncher({
      workspacesRoot: root,
      onWarning: (w) => warnings.push(w),
    });
    expect((await run(await strictByDefault(server('off'), 'alice'))).stdout).toBe('root= home=/tmp/alice\n');
    expect(warnings).toEqual([]);
    expect((await strictByDefault.describe(server('off'))).warnings).toEqual([
      expect.stringMatching(
        /asks for sandbox: "off", which sandbox.allowServerOff does not allow: it runs sandboxed/,
      ),
    ]);

    const user = `off-${process.pid}`;
    const allowing = createBubblewrapLauncher({
      workspacesRoot: root,
      allowServerOff: ['echo'],
      onWarning: (w) => warnings.push(w),
    });
    try {
      const off = await allowing(server('off'), user);
      expect(off.args).toEqual(['-c', 'echo "root=$FERRY_WORKSPACE_ROOT home=$HOME"']);
      expect(warnings[0]?.message).toMatch(/"echo" runs WITHOUT a sandbox \(sandbox: "off"\)/);
      expect(await allowing.describe(server('off'))).toMatchObject({
        effectiveMode: 'unsandboxed',
        warnings: [expect.stringMatching(/"echo" runs WITHOUT the sandbox \(its own sandbox: "off"\)/)],
      });
    } finally {
      await rm(`/tmp/${user}`, { force: true });
    }

    const strict = createBubblewrapLauncher({ workspacesRoot: root, mode: 'required', allowServerOff: true });
    const sandboxed = await run(await strict(server('off'), 'alice'));
    expect(sandboxed.stdout).toBe('root= home=/tmp/alice\n');
    expect(await strict.toolRootFor(server('off'))).toBe('/tmp');
  });

  it('auto with bubblewrap usable sandboxes, quietly', async () => {
    const warnings: SandboxWarning[] = [];
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, onWarning: (w) => warnings.push(w) });
    expect((await run(await launcher(server('auto'), 'alice'))).stdout).toBe('root= home=/tmp/alice\n');
    expect(warnings).toEqual([]);
    expect(await launcher.toolRootFor(server('auto'))).toBe('/tmp');
    expect(await launcher.probe()).toMatchObject({ available: true, effectiveMode: 'sandboxed' });
  });

  it('refuses an invalid username before anything starts, and bad options at creation', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root });
    for (const user of ['../bob', '', '.hidden', 'a/b', '-x']) {
      expectFerryError(await launcher(server('auto'), user).catch((e) => e), 'E_INVALID_INPUT');
    }
    expect(() => createBubblewrapLauncher({ workspacesRoot: '' })).toThrow(/workspacesRoot/);
    expect(() => createBubblewrapLauncher({ workspacesRoot: root, hide: ['relative'] })).toThrow(
      /not absolute/,
    );
    expect(() => createBubblewrapLauncher({ workspacesRoot: root, limits: { processes: -1 } })).toThrow(
      /processes/,
    );
  });
});
