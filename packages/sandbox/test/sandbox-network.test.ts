// `"network": true` for real: slirp4netns in the sandbox's own network namespace. Whatever listens
// on the host (Ferry, PostgreSQL, Redis, anything on 0.0.0.0) stays out of reach, through every
// address of the host; the stack itself is attached (tap0, a default route, the DNS forwarder).
import { rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher } from '../src/bubblewrap-launcher.js';
import type { SandboxServer } from '../src/launch-spec.js';
import { hostAddresses, SANDBOX_CIDR } from '../src/sandbox-network.js';
import { hostListener, hostTempDir, requireSandbox, run } from './support/run-launch.js';

let dir: string;
let listener: Server;
let port: number;
beforeAll(async () => {
  const probe = await requireSandbox();
  if (!probe.network.available) {
    throw new Error(
      `the isolated network cannot run here, so these tests cannot (they never skip): ${probe.network.reason}`,
    );
  }
  dir = await hostTempDir('ferry-network-');
  ({ server: listener, port } = await hostListener('0.0.0.0', 'hello from the host\n'));
});
afterAll(async () => {
  listener?.close();
  await rm(dir, { recursive: true, force: true });
});

const networked = (script: string): SandboxServer => ({
  name: 'net',
  command: '/bin/bash',
  args: ['-c', script],
  env: {},
  sandbox: 'required',
  network: true,
});

/** `host:port` → "open" or "closed", each tried for at most 3 s. */
const tryConnect = (targets: string[]) =>
  targets
    .map((target) => {
      const [host, p] = target.split(':');
      return `if timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${p}' 2>/dev/null; then echo "${target} open"; else echo "${target} closed"; fi`;
    })
    .join('; ');

describe('network: true', () => {
  it('reaches no listener of the host: not through 127.0.0.1, the stack’s gateway or any address of the host', async () => {
    const host = hostAddresses().map((cidr) => cidr.replace('/32', ''));
    expect(host.length).toBeGreaterThan(0);
    const gateway = SANDBOX_CIDR.replace('0/24', '2');
    const targets = [
      `127.0.0.1:${port}`,
      `${gateway}:${port}`,
      ...host.map((address) => `${address}:${port}`),
      // PostgreSQL and Redis of this machine, on loopback and on the host's addresses.
      '127.0.0.1:5432',
      '127.0.0.1:6379',
      `${gateway}:5432`,
      `${gateway}:6379`,
      ...host.flatMap((address) => [`${address}:5432`, `${address}:6379`]),
    ];
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces') });
    const ran = await run(await launcher(networked(tryConnect(targets)), 'nina'));
    expect(ran.stdout.trim().split('\n')).toEqual(targets.map((target) => `${target} closed`));
    // The same listener is reachable from the host itself: the test can tell open from closed.
    const fromHost = await run({
      command: '/bin/bash',
      args: ['-c', tryConnect([`127.0.0.1:${port}`, ...host.map((a) => `${a}:${port}`)])],
      env: {},
    });
    expect(fromHost.stdout).not.toContain('closed');
  });

  it('has a stack of its own: tap0 with a default route, resolv.conf naming its DNS forwarder, refused host routes', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces') });
    const ran = await run(
      await launcher(
        networked(
          'cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d " " | sort | tr "\\n" " "; echo; awk \'NR>1 {print $1, $2}\' /proc/net/route; cat /etc/resolv.conf',
        ),
        'nina',
      ),
    );
    const [interfaces, ...rest] = ran.stdout.trim().split('\n');
    expect(interfaces?.trim()).toBe('lo tap0');
    // Destination 00000000 (default) through tap0.
    expect(rest).toContain('tap0 00000000');
    expect(ran.stdout).toContain(`nameserver ${SANDBOX_CIDR.replace('0/24', '3')}`);
    expect(ran.stderr).toBe('');
  });

  it('a failing stack stops the launch with E_SANDBOX_UNAVAILABLE before the tool runs', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces') });
    const spec = await launcher(networked('echo tool-ran'), 'nina');
    // slirp4netns replaced by a program that fails at once.
    const at = spec.args.indexOf('/usr/bin/slirp4netns');
    expect(at).toBeGreaterThan(0);
    const broken = { ...spec, args: spec.args.map((arg, i) => (i === at ? '/bin/false' : arg)) };
    const ran = await run(broken);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(
      /^\[ferry\/sandbox\] E_SANDBOX_UNAVAILABLE: slirp4netns could not attach the network$/m,
    );
    expect(ran.code).toBe(125);
  });
});
