// The launcher with real bubblewrap: every test starts real sandboxes (sh scripts as servers).
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { processesWith } from '@ferry/test-helpers/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher } from '../src/bubblewrap-launcher.js';
import { LOCAL_SERVER_ENV_DEFAULTS, type SandboxServer } from '../src/launch-spec.js';
import {
  groupMembers,
  hostTempDir,
  requireSandbox,
  run,
  shServer,
  start,
  waitForGroupGone,
  waitForNone,
} from './support/run-launch.js';

let dir: string;
let root: string;
let data: string;
beforeAll(async () => {
  await requireSandbox();
  dir = await hostTempDir('ferry-launcher-');
  root = join(dir, 'workspaces');
  data = join(dir, 'data');
  await mkdir(data);
  await writeFile(join(data, 'catalog.db'), 'every user’s files');
  await mkdir(join(root, 'bob'), { recursive: true, mode: 0o700 });
  await writeFile(join(root, 'bob', 'private.txt'), 'bob only');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sh = (script: string, extra: Partial<SandboxServer> = {}) =>
  shServer(script, { sandbox: 'auto', ...extra });

describe('createBubblewrapLauncher', () => {
  it('runs the server as the unprivileged sandbox user in a read-only private /tmp: its workspace read-write, input_files read-only', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, hide: [data] });
    const probe = await launcher.probe();
    const spec = await launcher(
      sh(`id -u; pwd; ls /tmp; echo made > /tmp/alice/out.txt && echo wrote;
          (echo x > /tmp/alice/input_files/x) 2>/dev/null || echo input-ro;
          (echo x > /etc/x) 2>/dev/null || echo etc-ro; (echo x > /tmp/scratch) 2>/dev/null || echo tmp-ro;
          (echo x > /tmp/bob) 2>/dev/null || echo other-ro; echo x > "$TMPDIR/s" && echo "scratch-rw $TMPDIR"`),
      'alice',
    );
    expect(spec.command).toBe('/bin/sh');
    const ran = await run(spec);
    expect(ran.stdout.split('\n')).toEqual([
      String(probe.runsAs?.uid),
      '/tmp/alice',
      'alice',
      'wrote',
      'input-ro',
      'etc-ro',
      'tmp-ro',
      'other-ro',
      'scratch-rw /var/tmp',
      '',
    ]);
    // As root, never a uid that is root on the host (the finding: 65534 inside mapped to 0 outside).
    if (process.getuid?.() === 0) {
      expect(probe.runsAs).toMatchObject({ how: 'setpriv' });
      expect(probe.runsAs?.uid).not.toBe(0);
      expect(probe.runsAs?.gid).not.toBe(0);
    }
    const out = await stat(join(root, 'alice', 'out.txt'));
    expect(out.uid).toBe(probe.runsAs?.uid);
    expect(await readFile(join(root, 'alice', 'out.txt'), 'utf8')).toBe('made\n');
  });

  it('hides the workspaces root, the hidden paths and /etc/shadow, and the host paths of its own command line', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, hide: [data] });
    const ran = await run(
      await launcher(
        sh(`echo "[$(ls -A ${root})] [$(ls -A ${data})]"; cat ${root}/bob/private.txt ${data}/catalog.db /etc/shadow 2>&1 | wc -l;
            cat /tmp/bob/private.txt 2>/dev/null || echo no-bob; tr '\\0' ' ' < /proc/1/cmdline`),
        'alice',
      ),
    );
    const [listed, catted, noBob, cmdline] = ran.stdout.split('\n');
    expect(listed).toBe('[] []');
    expect(ran.stdout).not.toContain('bob only');
    expect(ran.stdout).not.toContain('every user');
    expect(catted).toBe('3'); // three error lines, no content
    expect(noBob).toBe('no-bob');
    expect(cmdline).toMatch(/^\/usr\/bin\/bwrap --args 4 -- /);
    expect(cmdline).not.toMatch(/--bind|--setenv|--tmpfs/);
    expect(cmdline).not.toContain(join(root, 'alice'));
  });

  it('clears the environment: the allowlist, HOME/USER of the user, the server’s env with {{user}}, never FERRY_WORKSPACE_ROOT', async () => {
    process.env.FERRY_TEST_CANARY = 'must not leak';
    try {
      const launcher = createBubblewrapLauncher({ workspacesRoot: root });
      const ran = await run(
        await launcher(
          sh('env | sort', { env: { API_KEY: 'k-{{user}}', FERRY_WORKSPACE_ROOT: '/srv' } }),
          'alice',
        ),
      );
      const env = Object.fromEntries(
        ran.stdout
          .trim()
          .split('\n')
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      );
      expect(env).toMatchObject({ API_KEY: 'k-alice', HOME: '/tmp/alice', USER: 'alice', LOGNAME: 'alice' });
      expect(env.PATH).toBe(process.env.PATH);
      // Ferry's defaults for every local server, which the configured env could replace.
      expect(env.MALLOC_MMAP_THRESHOLD_).toBe(LOCAL_SERVER_ENV_DEFAULTS.MALLOC_MMAP_THRESHOLD_);
      expect(env.FERRY_TEST_CANARY).toBeUndefined();
      expect(env.FERRY_WORKSPACE_ROOT).toBeUndefined();
      const allowed = [
        'PATH',
        'LANG',
        'LC_ALL',
        'TZ',
        'TERM',
        'HOME',
        'USER',
        'LOGNAME',
        'API_KEY',
        'TMPDIR',
        ...Object.keys(LOCAL_SERVER_ENV_DEFAULTS),
        'PWD',
        'SHLVL',
        '_',
      ];
      expect(Object.keys(env).filter((name) => !allowed.includes(name))).toEqual([]);
    } finally {
      delete process.env.FERRY_TEST_CANARY;
    }
  });

  it('applies the limits through prlimit and a pids cgroup', async () => {
    const launcher = createBubblewrapLauncher({
      workspacesRoot: root,
      limits: {
        memoryBytes: 3 * 1024 ** 3,
        cpuSeconds: 60,
        openFiles: 99,
        processes: 50,
        fileSizeBytes: 4096,
      },
    });
    const spec = await launcher(
      sh('cat /proc/self/limits; head -c 5000 /dev/zero > /tmp/alice/big; echo "fsize=$?"'),
      'alice',
    );
    // The wrapper's second argument is the sandbox's own pids cgroup.
    const cgroupDir = spec.args[4] as string;
    expect(await readFile(join(cgroupDir, 'pids.max'), 'utf8')).toBe('50\n');
    const ran = await run(spec);
    expect(ran.stdout).toMatch(/Max data size\s+3221225472\s+3221225472/);
    expect(ran.stdout).toMatch(/Max cpu time\s+60\s+60/);
    expect(ran.stdout).toMatch(/Max open files\s+99\s+99/);
    // Per sandbox by the pids cgroup, not RLIMIT_NPROC, which would count every sandbox of the
    // shared sandbox uid together.
    expect(ran.stdout).not.toMatch(/Max processes\s+50\s+50/);
    expect(ran.stdout).toMatch(/Max file size\s+4096\s+4096/);
    expect(ran.stdout).toMatch(/fsize=(?!0)\d+/);
  });

  it('no process survives a kill of the process group (bwrap, the server, what it started in a new session)', async () => {
    const marker = `ferry-survivor-${process.pid}`;
    const launcher = createBubblewrapLauncher({ workspacesRoot: root });
    // A background child, a grandchild in its own session (out of every process group) and the
    // server itself; bash's `exec -a` names them so /proc shows which are left.
    const script = `(exec -a ${marker}-a sleep 1000 &); (setsid bash -c "exec -a ${marker}-b sleep 1001" &); exec -a ${marker}-c sleep 1002`;
    const running = start(await launcher({ ...sh(''), command: '/bin/bash', args: ['-c', script] }, 'alice'));
    try {
      const deadline = Date.now() + 5000;
      while (processesWith(marker, 'argv0').length < 3 && Date.now() < deadline) await delay(50);
      expect(processesWith(marker, 'argv0')).toHaveLength(3);
      // The wrapper and both bwrap processes carry the marker too (in the script they run).
      expect(processesWith(marker).length).toBeGreaterThan(3);
    } finally {
      running.killGroup();
    }
    await running.exited;
    expect(await waitForNone(marker)).toEqual([]);
    expect(groupMembers(running.pid)).toEqual([]);
  });

  it('stdin EOF ends the server (the watcher too), and the wrapper exits with its code', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: root, limits: { quotaCheckMs: 60_000 } });
    const running = start(await launcher(sh('read line; echo "got $line"; cat >/dev/null; exit 7'), 'alice'));
    running.write('hi\n');
    running.end();
    expect(await running.exited).toMatchObject({ code: 7, stdout: 'got hi\n' });
    // A watcher asleep for a minute neither kept the wrapper alive nor held its output open, and
    // it goes too (on its own: nobody kills the group here, as the transport would).
    expect(await waitForGroupGone(running.pid)).toEqual([]);
  });
});
