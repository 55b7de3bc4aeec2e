import { describe, expect, it } from 'vitest';
import { type BwrapPlan, bwrapArguments } from '../src/bwrap-arguments.js';

const plan: BwrapPlan = {
  username: 'alice',
  hostDir: '/srv/ferry/workspaces/alice',
  inputDir: '/srv/ferry/workspaces/alice/input_files',
  network: false,
  system: [
    { kind: 'bind', path: '/usr' },
    { kind: 'symlink', path: '/bin', target: 'usr/bin' },
    { kind: 'bind', path: '/etc/ld.so.cache' },
    { kind: 'bind', path: '/etc/ssl' },
  ],
  etc: {
    passwd: '/srv/state/alice/passwd',
    group: '/srv/state/alice/group',
    resolvConf: '/srv/state/alice/resolv',
  },
  programRoots: ['/opt/tools/report', '/tmp/checkout'],
  binds: [
    { path: '/srv/models', writable: false },
    { path: '/srv/cache', writable: true },
  ],
  masks: { dirs: ['/tmp/checkout/.ferry'], files: ['/tmp/checkout/ferry.config.json'] },
  env: { PATH: '/usr/bin', HOME: '/tmp/alice' },
  cwd: '/tmp/alice',
  identity: { kind: 'setpriv', uid: 999, gid: 995, setprivPath: '/usr/bin/setpriv' },
  tmpBytes: 1024,
  prlimit: { path: '/usr/bin/prlimit', options: ['--data=100', '--nofile=10'] },
  command: '/usr/bin/node',
  args: ['server.js', '--'],
};

/** The value(s) right after each occurrence of `flag`. */
function after(args: string[], flag: string, count = 1): string[][] {
  const found: string[][] = [];
  args.forEach((arg, i) => {
    if (arg === flag) found.push(args.slice(i + 1, i + 1 + count));
  });
  return found;
}

describe('bwrapArguments', () => {
  const { options, command } = bwrapArguments(plan);

  it('starts from an empty root: never binds / or anything not in the plan', () => {
    const sources = [...after(options, '--ro-bind', 2), ...after(options, '--bind', 2)].map(
      ([source]) => source,
    );
    expect(sources).not.toContain('/');
    expect(new Set(sources)).toEqual(
      new Set([
        '/usr',
        '/etc/ld.so.cache',
        '/etc/ssl',
        '/srv/state/alice/passwd',
        '/srv/state/alice/group',
        '/srv/ferry/workspaces/alice',
        '/srv/ferry/workspaces/alice/input_files',
        '/opt/tools/report',
        '/tmp/checkout',
        '/srv/models',
        '/srv/cache',
        '/dev/null',
      ]),
    );
    expect(after(options, '--symlink', 2)).toEqual([['usr/bin', '/bin']]);
    // The resolver file only with the network.
    expect(options).not.toContain('/etc/resolv.conf');
    expect(bwrapArguments({ ...plan, network: true }).options).toContain('/etc/resolv.conf');
  });

  it('unshares every namespace but the user one as root, drops capabilities but what setpriv needs', () => {
    for (const flag of [
      '--unshare-ipc',
      '--unshare-pid',
      '--unshare-uts',
      '--unshare-net',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(options).toContain(flag);
    }
    expect(options).not.toContain('--share-net');
    expect(options).not.toContain('--unshare-user');
    expect(after(options, '--cap-drop')).toEqual([['ALL']]);
    expect(after(options, '--cap-add').flat().sort()).toEqual([
      'CAP_DAC_OVERRIDE',
      'CAP_SETGID',
      'CAP_SETPCAP',
      'CAP_SETUID',
    ]);
    // The network is never the host's namespace, with or without `network`.
    expect(bwrapArguments({ ...plan, network: true }).options).toContain('--unshare-net');
  });

  it('without root: a user namespace mapped to Ferry’s uid, no capabilities, no nested namespaces, no setpriv', () => {
    const userns = bwrapArguments({ ...plan, identity: { kind: 'userns', uid: 1000, gid: 1000 } });
    for (const flag of ['--unshare-user', '--disable-userns']) expect(userns.options).toContain(flag);
    expect(after(userns.options, '--uid')).toEqual([['1000']]);
    expect(userns.options).not.toContain('--cap-add');
    // /proc/sys would be writable per file mode to the mapped uid: the host's, read-only.
    expect(after(userns.options, '--ro-bind', 2)).toContainEqual(['/proc/sys', '/proc/sys']);
    expect(userns.command[0]).toBe('/usr/bin/prlimit');
  });

  it('a read-only private /tmp with the workspace read-write and input_files read-only, a scratch /var/tmp', () => {
    const tmpfs = options.indexOf('/tmp');
    expect(options.slice(tmpfs - 5, tmpfs + 1)).toEqual([
      '--perms',
      '0755',
      '--size',
      '1024',
      '--tmpfs',
      '/tmp',
    ]);
    expect(after(options, '--bind', 2)).toContainEqual(['/srv/ferry/workspaces/alice', '/tmp/alice']);
    expect(after(options, '--ro-bind', 2)).toContainEqual([
      '/srv/ferry/workspaces/alice/input_files',
      '/tmp/alice/input_files',
    ]);
    expect(options.indexOf('/tmp/alice')).toBeGreaterThan(tmpfs);
    expect(options.indexOf('/tmp/alice/input_files')).toBeGreaterThan(options.indexOf('/tmp/alice'));
    // /tmp is remounted read-only last (not recursively): only the workspace is writable there.
    expect(
      options.slice(options.lastIndexOf('--remount-ro'), options.lastIndexOf('--remount-ro') + 2),
    ).toEqual(['--remount-ro', '/tmp']);
    expect(options.lastIndexOf('--remount-ro')).toBeGreaterThan(options.lastIndexOf('--ro-bind'));
    expect(after(options, '--tmpfs')).toContainEqual(['/var/tmp']);
    expect(after(options, '--proc')).toEqual([['/proc']]);
    expect(after(options, '--dev')).toEqual([['/dev']]);
    expect(after(options, '--tmpfs')).toContainEqual(['/dev/shm']);
  });

  it('binds the program trees and the config’s binds at their own paths, then masks inside them', () => {
    expect(after(options, '--ro-bind', 2)).toEqual(
      expect.arrayContaining([
        ['/opt/tools/report', '/opt/tools/report'],
        ['/tmp/checkout', '/tmp/checkout'],
        ['/srv/models', '/srv/models'],
      ]),
    );
    expect(after(options, '--bind', 2)).toContainEqual(['/srv/cache', '/srv/cache']);
    const mask = options.indexOf('/tmp/checkout/.ferry');
    expect(options.slice(mask - 3, mask + 3)).toEqual([
      '--perms',
      '0000',
      '--tmpfs',
      '/tmp/checkout/.ferry',
      '--remount-ro',
      '/tmp/checkout/.ferry',
    ]);
    expect(mask).toBeGreaterThan(options.indexOf('/tmp/checkout'));
    expect(after(options, '--ro-bind', 2)).toContainEqual(['/dev/null', '/tmp/checkout/ferry.config.json']);
  });

  it('makes the parents of each mount point 0755 first (bwrap would make them 0700, root’s)', () => {
    const dirs = after(options, '--dir').flat();
    expect(dirs).toEqual(expect.arrayContaining(['/etc', '/opt', '/opt/tools', '/srv']));
    expect(dirs.indexOf('/opt/tools')).toBeGreaterThan(dirs.indexOf('/opt'));
    for (const dir of ['/etc', '/opt/tools']) {
      const at = options.indexOf(dir);
      expect(options.slice(at - 3, at)).toEqual(['--perms', '0755', '--dir']);
    }
  });

  it('clears the environment, sets only the plan’s, and changes to the working directory', () => {
    expect(options).toContain('--clearenv');
    expect(after(options, '--setenv', 2)).toEqual([
      ['PATH', '/usr/bin'],
      ['HOME', '/tmp/alice'],
    ]);
    expect(after(options, '--chdir')).toEqual([['/tmp/alice']]);
    expect(options.indexOf('--clearenv')).toBeLessThan(options.indexOf('--setenv'));
  });

  it('runs the command as the sandbox user through setpriv, then prlimit, apart from the options', () => {
    expect(command).toEqual([
      '/usr/bin/setpriv',
      '--reuid=999',
      '--regid=995',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
      '/usr/bin/prlimit',
      '--data=100',
      '--nofile=10',
      '--',
      '/usr/bin/node',
      'server.js',
      '--',
    ]);
    expect(options).not.toContain('/usr/bin/node');
  });

  it('with innerBwrap, the sandbox user enters a namespace of its own where no further one can be made', () => {
    const inner = bwrapArguments({
      ...plan,
      identity: { ...plan.identity, innerBwrap: '/usr/bin/bwrap' } as BwrapPlan['identity'],
    }).command;
    const at = inner.indexOf('/usr/bin/bwrap');
    expect(at).toBe(8);
    expect(inner.slice(at, inner.indexOf('/usr/bin/prlimit'))).toEqual([
      '/usr/bin/bwrap',
      '--unshare-user',
      '--disable-userns',
      '--uid',
      '999',
      '--gid',
      '995',
      '--dev-bind',
      '/',
      '/',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      '--',
    ]);
  });
});
