import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../src/probe-sandbox.js';
import { BWRAP_FAILURE, fakeBwrap } from './support/fake-bwrap.js';
import { requireSandbox } from './support/run-launch.js';

describe('probeSandbox', () => {
  it('runs bubblewrap for real here and reports it usable, with the limits it can apply', async () => {
    const probe = await requireSandbox();
    expect(probe).toMatchObject({
      mode: 'required',
      available: true,
      effectiveMode: 'sandboxed',
      toolRoot: '/tmp',
    });
    expect(probe.bwrapVersion).toMatch(/^\d+\.\d+/);
    // The allow-list as the probe's own tool saw it: nothing of the host but the system dirs.
    expect(probe.sees?.root.sort()).toEqual(
      expect.arrayContaining(['dev', 'etc', 'proc', 'tmp', 'usr', 'var']),
    );
    for (const absent of ['root', 'home', 'srv', 'opt', 'mnt', 'run', 'boot', 'work', 'media']) {
      expect(probe.sees?.root).not.toContain(absent);
    }
    expect(probe.sees?.uid).toBe(probe.runsAs?.uid);
    if (process.getuid?.() === 0) {
      expect(probe.runsAs).toMatchObject({ how: 'setpriv' });
      expect(probe.runsAs?.uid).toBeGreaterThan(0);
    }
    expect(probe.network).toMatchObject({ available: true, helper: 'slirp4netns' });
    expect(probe.limits.prlimit).toMatch(/\/prlimit$/);
    // This machine runs the tests as root, where only a cgroup can limit processes.
    expect(probe.limits.processes).toBe(process.getuid?.() === 0 ? 'cgroup' : expect.any(String));
    expect(probe.warning).toBeUndefined();
    expect((await probeSandbox()).effectiveMode).toBe('sandboxed');
  });

  it('a bubblewrap that cannot create namespaces: required refuses, auto runs unsandboxed, both say why', async () => {
    const bwrapPath = await fakeBwrap();
    const required = await probeSandbox({ mode: 'required', bwrapPath });
    expect(required).toMatchObject({ available: false, effectiveMode: 'refused' });
    expect(required.reason).toContain(BWRAP_FAILURE);
    expect(required.warning).toMatch(/cannot start: sandbox: "required"/);
    expect(required.toolRoot).toBeUndefined();

    const auto = await probeSandbox({ mode: 'auto', bwrapPath });
    expect(auto).toMatchObject({ available: false, effectiveMode: 'unsandboxed' });
    expect(auto.warning).toMatch(/WITHOUT a sandbox.*setting up uid map/);
  });

  it('no bubblewrap at all; and off, which never sandboxes, says so too', async () => {
    const missing = await probeSandbox({ mode: 'required', bwrapPath: '/nonexistent/bwrap' });
    expect(missing).toMatchObject({ available: false, effectiveMode: 'refused' });
    expect(missing.reason).toMatch(/not found.*bubblewrap package/);
    const off = await probeSandbox({ mode: 'off' });
    expect(off).toMatchObject({ available: true, effectiveMode: 'unsandboxed' });
    expect(off.warning).toMatch(/sandbox: "off"/);
  });
});
