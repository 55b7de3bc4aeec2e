// Which servers run sandboxed, which are refused and which run without, with the reasons given.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher, type SandboxWarning } from '../src/bubblewrap-launcher.js';
import type { SandboxMode, SandboxServer } from '../src/launch-spec.js';
import { BWRAP_FAILURE, fakeBwrap } from './support/fake-bwrap.js';
import { hostTempDir, requireSandbox, run } from './support/run-launch.js';

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

const server = (sandbox: SandboxMode, extra: Partial<SandboxServer> = {}): SandboxServer => ({
  name: 'echo',
  command: '/bin/sh',
  args: ['-c', 'echo "root=$FERRY_WORKSPACE_ROOT home=$HOME"'],
  env: {},
  sandbox,
  network: false,
  ...extra,
});

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

  it('auto without a usable bubblewrap: runs unsandboxed, warns every launch, and points the tool at the host path', async () => {
    const warnings: SandboxWarning[] = [];
    const launcher = createBubblewrapLauncher({
      workspacesRoot: root,
      bwrapPath: broken,
      onWarning: (warning) => warnings.push(warning),
    });
    const spec = await launcher(server('auto'), 'alice');
    expect(spec.command).toBe('/bin/sh');
    expect(spec.args[0]).toBe('-c');
    expect((await run(spec)).stdout).toBe(`root=${root} home=${process.env.HOME}\n`);
    expect(warnings).toEqual([
      { server: 'echo', user: 'alice', message: expect.stringMatching(/WITHOUT a sandbox.*uid map/) },
    ]);
    expect((await launcher.probe()).effectiveMode).toBe('unsandboxed');
    expect(await launcher.toolRootFor(server('auto'))).toBeUndefined();
  });

  it('a server set to off runs unsandboxed (with a warning); a required launcher sandboxes it anyway', async () => {
    const warnings: SandboxWarning[] = [];
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, onWarning: (w) => warnings.push(w) });
    const off = await launcher(server('off'), 'alice');
    expect(off.args).toEqual(['-c', 'echo "root=$FERRY_WORKSPACE_ROOT home=$HOME"']);
    expect(warnings[0]?.message).toMatch(/"echo" runs WITHOUT a sandbox \(sandbox: "off"\)/);
    expect(await launcher.toolRootFor(server('off'))).toBeUndefined();

    const strict = createBubblewrapLauncher({ workspacesRoot: root, mode: 'required' });
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
