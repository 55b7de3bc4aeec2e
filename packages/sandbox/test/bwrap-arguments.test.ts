import { describe, expect, it } from 'vitest';
import { type BwrapPlan, bwrapArguments } from '../src/bwrap-arguments.js';

const plan: BwrapPlan = {
  username: 'alice',
  hostDir: '/srv/ferry/workspaces/alice',
  inputDir: '/srv/ferry/workspaces/alice/input_files',
  network: false,
  hiddenDirs: ['/srv/ferry/workspaces', '/srv/ferry/data', '/tmp/elsewhere', '/run/postgresql'],
  hiddenFiles: ['/etc/shadow'],
  env: { PATH: '/usr/bin', HOME: '/tmp/alice' },
  cwd: '/tmp/alice',
  uid: 65534,
  gid: 65534,
  tmpBytes: 1024,
  prlimit: { path: '/usr/bin/prlimit', options: ['--data=100', '--nofile=10'] },
  command: 'node',
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

  it('unshares every namespace, keeps none of the capabilities and dies with its parent', () => {
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(options).toContain(flag);
    }
    expect(options).not.toContain('--share-net');
    expect(after(options, '--cap-drop')).toEqual([['ALL']]);
    expect(after(options, '--uid')).toEqual([['65534']]);
  });

  it('keeps the network only when the plan says so', () => {
    expect(bwrapArguments({ ...plan, network: true }).options).toContain('--share-net');
  });

  it('binds / read-only, then a private /tmp with the workspace read-write and input_files read-only', () => {
    expect(after(options, '--ro-bind', 2)).toContainEqual(['/', '/']);
    expect(after(options, '--bind', 2)).toEqual([['/srv/ferry/workspaces/alice', '/tmp/alice']]);
    expect(after(options, '--ro-bind', 2)).toContainEqual([
      '/srv/ferry/workspaces/alice/input_files',
      '/tmp/alice/input_files',
    ]);
    const tmpfs = options.lastIndexOf('/tmp');
    expect(options.slice(tmpfs - 3, tmpfs + 1)).toEqual(['--size', '1024', '--tmpfs', '/tmp']);
    // Order matters: the private /tmp first, then the workspace on it, then input_files over that.
    expect(options.indexOf('/tmp/alice')).toBeGreaterThan(tmpfs);
    expect(options.indexOf('/tmp/alice/input_files')).toBeGreaterThan(options.indexOf('/tmp/alice'));
    expect(after(options, '--proc')).toEqual([['/proc']]);
    expect(after(options, '--dev')).toEqual([['/dev']]);
    expect(after(options, '--tmpfs')).toContainEqual(['/run']);
    // What would otherwise be writable beyond the workspace and /tmp: /proc/sys, /dev, /run.
    expect(after(options, '--ro-bind', 2)).toContainEqual(['/proc/sys', '/proc/sys']);
    expect(after(options, '--remount-ro')).toEqual(expect.arrayContaining([['/dev'], ['/run']]));
    expect(after(options, '--tmpfs')).toContainEqual(['/dev/shm']);
  });

  it('covers hidden directories with an empty read-only tmpfs and hidden files with /dev/null', () => {
    expect(after(options, '--tmpfs')).toContainEqual(['/srv/ferry/workspaces']);
    expect(after(options, '--remount-ro')).toEqual(
      expect.arrayContaining([['/srv/ferry/workspaces'], ['/srv/ferry/data']]),
    );
    expect(after(options, '--ro-bind', 2)).toContainEqual(['/dev/null', '/etc/shadow']);
    // Under the private /tmp and /run they are gone anyway; a mount there would only leak the name.
    expect(options).not.toContain('/tmp/elsewhere');
    expect(options).not.toContain('/run/postgresql');
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

  it('runs the command through prlimit, apart from the options', () => {
    expect(command).toEqual([
      '/usr/bin/prlimit',
      '--data=100',
      '--nofile=10',
      '--',
      'node',
      'server.js',
      '--',
    ]);
    expect(bwrapArguments({ ...plan, prlimit: undefined }).command).toEqual(['node', 'server.js', '--']);
    expect(options).not.toContain('node');
  });
});
