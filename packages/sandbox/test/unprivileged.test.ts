// Ferry run by an ordinary user (here uid 65534, started through setpriv by the root test): the
// sandbox maps the tool to Ferry's own uid through a user namespace, sees the same allow-list,
// and network: true still gets the isolated stack (slirp4netns joins the user namespace).
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostListener } from './support/run-launch.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../../..');
let dir: string;
let cli: string;
let listener: Server;
let port: number;

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error('this test starts Ferry as another uid through setpriv: run it as root (CI does)');
  dir = await mkdtemp('/var/tmp/ferry-unprivileged-');
  await chmod(dir, 0o777);
  // Bundled into the test's own directory: the checkout may lie where that user cannot go (a
  // clean clone under a 0700 mktemp directory).
  cli = join(dir, 'unprivileged-cli.mjs');
  await build({
    entryPoints: [join(REPO, 'packages/sandbox/test/support/unprivileged-cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['ferry-source'],
    outfile: cli,
    logLevel: 'error',
  });
  await chmod(cli, 0o644);
  ({ server: listener, port } = await hostListener('0.0.0.0', 'host\n'));
});
afterAll(async () => {
  listener?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Ferry as an ordinary user', () => {
  it('maps the tool to Ferry’s own uid, on the same allow-list, with the isolated network', async () => {
    const script = `id -u; ls -A / | tr '\\n' ' '; echo; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo host-reached || echo host-refused; cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | sort | tr '\\n' ' '`;
    const { stdout } = await run(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        'env',
        `HOME=${dir}`,
        `TMPDIR=${dir}`,
        `PATH=${process.env.PATH}`,
        process.execPath,
        cli,
        join(dir, 'workspaces'),
        `exec /bin/bash -c "${script.replaceAll('"', '\\"')}"`,
      ],
      { cwd: dir, timeout: 60_000 },
    );
    type Ran = { status?: number; stdout?: string; error?: { code: string; message: string } };
    const result = JSON.parse(stdout) as {
      probe: {
        available: boolean;
        runsAs: { uid: number; how: string };
        sees: { root: string[] };
        network: { available: boolean; reason?: string };
      };
      offline: Ran;
      online: Ran;
    };
    expect(result.probe).toMatchObject({ available: true, runsAs: { uid: 65534, how: 'userns' } });
    expect(result.probe.sees.root).not.toContain('root');
    const [uid, top, reached, interfaces] = (result.offline.stdout ?? '').trim().split('\n');
    expect(uid).toBe('65534');
    expect(top?.trim().split(' ')).not.toContain('home');
    expect(reached).toBe('host-refused');
    expect(interfaces?.trim()).toBe('lo');
    if (result.probe.network.available) {
      // The stack attached through the user namespace; the host still out of reach.
      expect(result.online.stdout?.trim().split('\n').slice(2)).toEqual(['host-refused', 'lo tap0']);
    } else {
      // A host whose TUN device only root may open (this one: /dev/net/tun 0600): said, and
      // network: true in required mode is refused, never the host's namespace.
      expect(result.probe.network.reason).toMatch(
        /\/dev\/net\/tun is not readable and writable by Ferry's user/,
      );
      expect(result.online.error).toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
      expect(result.online.error?.message).toMatch(
        /asks for the network, which the sandbox cannot isolate here/,
      );
    }
  });
});
