import { readFile, rmdir, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { locate, openPidsCgroup } from '../src/pids-cgroup.js';

const V1_CGROUP = '8:pids:/ferry.service\n4:memory:/x\n0::/\n';
const V1_MOUNTS = [
  '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
  '39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe('locating Ferry’s pids cgroup', () => {
  it('cgroup v1: the pids hierarchy’s mount plus Ferry’s path in it', () => {
    expect(locate(V1_CGROUP, V1_MOUNTS)).toEqual({ dir: '/sys/fs/cgroup/pids/ferry.service', version: 1 });
  });

  it('cgroup v2: the unified mount, also when the container mounted a subtree', () => {
    const mounts = '30 1 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n';
    expect(locate('0::/docker/abc/app\n', mounts)).toEqual({ dir: '/sys/fs/cgroup/app', version: 2 });
    // Ferry's cgroup outside what is mounted: nothing usable.
    expect(locate('0::/elsewhere\n', mounts)).toBeUndefined();
  });

  it('mount points with escaped spaces', () => {
    const mounts = '39 31 0:36 / /sys/fs/my\\040cgroups rw - cgroup cgroup rw,pids\n';
    expect(locate('3:pids:/\n', mounts)).toEqual({ dir: '/sys/fs/my cgroups', version: 1 });
  });
});

describe('pids cgroups on this machine', () => {
  it('creates a child with pids.max and sweeps only empty, stale children', async () => {
    const opened = await openPidsCgroup();
    if (!opened.ok) throw new Error(`no pids cgroup here (the fork-bomb tests need one): ${opened.reason}`);
    const dir = await opened.cgroup.create(7);
    try {
      expect((await stat(dir)).isDirectory()).toBe(true);
      expect((await readFile(`${dir}/pids.max`, 'utf8')).trim()).toBe('7');
      // Young: a wrapper may be about to join it, so the sweep leaves it.
      await opened.cgroup.sweep();
      expect((await stat(dir)).isDirectory()).toBe(true);
    } finally {
      await rmdir(dir);
    }
  });

  it('a sweep running while groups are being made never removes one of them (concurrent launches)', async () => {
    const opened = await openPidsCgroup();
    if (!opened.ok) throw new Error(`no pids cgroup here: ${opened.reason}`);
    const { cgroup } = opened;
    // 20 launches at once, each sweeping first as the launcher does, all interleaved.
    const dirs = await Promise.all(
      Array.from({ length: 20 }, async () => {
        await cgroup.sweep();
        const dir = await cgroup.create(5);
        await cgroup.sweep();
        return dir;
      }),
    );
    try {
      for (const dir of dirs) expect((await readFile(`${dir}/pids.max`, 'utf8')).trim()).toBe('5');
    } finally {
      await Promise.all(dirs.map((dir) => rmdir(dir).catch(() => undefined)));
    }
  });
});
