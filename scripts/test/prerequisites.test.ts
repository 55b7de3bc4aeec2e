// npm test's first step: the machine's prerequisites. The machine is simulated (a PATH of fake
// commands, a Chromium path that does or does not exist, root or not, sudo or not) and every
// command the check would run goes to a recorder: nothing is installed for real.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrerequisites, type PrerequisiteOptions } from '../prerequisites.mjs';

const SANDBOX_COMMANDS = ['bwrap', 'slirp4netns', 'ip', 'nsenter', 'prlimit', 'setpriv'];
const ROOT = join(import.meta.dirname, '..', '..');

let dir: string;
let bin: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-prereq-'));
  bin = join(dir, 'bin');
  mkdirSync(bin);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fakeExecutable(path: string): string {
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

/** A machine with every prerequisite except `missing`, whose commands are recorded, never run. */
function machine(missing: string[], overrides: Partial<PrerequisiteOptions> = {}) {
  for (const command of SANDBOX_COMMANDS) if (!missing.includes(command)) fakeExecutable(join(bin, command));
  const chromium = join(dir, 'chromium');
  if (!missing.includes('chromium')) fakeExecutable(chromium);
  const ran: string[] = [];
  const out: string[] = [];
  const options: PrerequisiteOptions = {
    path: bin,
    chromiumPath: chromium,
    pythonPath: fakeExecutable(join(dir, 'python3')),
    isRoot: false,
    canSudo: false,
    isDebian: true,
    checkPostgres: async () => undefined,
    checkRedis: async () => undefined,
    run: (command) => {
      ran.push(command.join(' '));
      return 0;
    },
    log: (line) => out.push(line),
    error: (line) => out.push(line),
    ...overrides,
  };
  return { options, ran, out, chromium };
}

/** The commands that would change the machine (the python probe only reads). */
const changes = (ran: string[]) => ran.filter((command) => !command.includes(' -c import ensurepip'));

describe('npm test prerequisites', () => {
  it('cannot install (not root, no sudo): prints the exact command and fails at once, running nothing', async () => {
    const { options, ran, out } = machine(['chromium', 'bwrap', 'slirp4netns']);
    const started = performance.now();
    const status = await ensurePrerequisites(options);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(status).toBe(1);
    expect(changes(ran)).toEqual([]);
    expect(out).toContain('  sudo apt-get install -y chromium bubblewrap slirp4netns');
    expect(out).toContain('[test] the machine lacks what these tests need, so no test was run:');
    expect(out.some((line) => line.includes(`Chromium at ${options.chromiumPath}`))).toBe(true);
    expect(out.some((line) => line.includes('bwrap (bubblewrap)'))).toBe(true);
  });

  it('passes when everything is there, installing nothing', async () => {
    const { options, ran, out } = machine([]);
    expect(await ensurePrerequisites(options)).toBe(0);
    expect(changes(ran)).toEqual([]);
    expect(out[0]).toMatch(/^\[test\] prerequisites: ready/);
  });

  it('as root on Debian: installs with apt-get, printing each command, then checks again', async () => {
    const m = machine(['chromium', 'bwrap'], { isRoot: true });
    m.options.run = (command) => {
      m.ran.push(command.join(' '));
      // What apt-get would leave behind.
      if (command.includes('install')) {
        fakeExecutable(m.chromium);
        fakeExecutable(join(bin, 'bwrap'));
      }
      return 0;
    };
    expect(await ensurePrerequisites(m.options)).toBe(0);
    const install =
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium bubblewrap';
    expect(changes(m.ran)).toEqual(['apt-get update -qq', install]);
    expect(m.out).toContain(`[test] running: ${install}`);
  });

  it('with passwordless sudo: the same through sudo -n; a failed install is reported with the command', async () => {
    const { options, ran, out } = machine(['bwrap'], { canSudo: true });
    expect(await ensurePrerequisites(options)).toBe(1);
    expect(changes(ran)).toEqual([
      'sudo -n apt-get update -qq',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap',
    ]);
    expect(out).toContain('  sudo apt-get install -y bubblewrap');
  });

  it('--check (install: false) as root only reports, with the command without sudo', async () => {
    const { options, ran, out } = machine(['slirp4netns'], { isRoot: true, install: false });
    expect(await ensurePrerequisites(options)).toBe(1);
    expect(changes(ran)).toEqual([]);
    expect(out).toContain('  apt-get install -y slirp4netns');
  });

  it('python3 without venv asks for python3-venv', async () => {
    const { options, out } = machine([], {
      run: (command) => (command.includes('import ensurepip, venv') ? 1 : 0),
    });
    expect(await ensurePrerequisites(options)).toBe(1);
    expect(out).toContain('  sudo apt-get install -y python3-venv');
  });

  it('PostgreSQL: a stopped server is started, then the missing database created (as the tests need it)', async () => {
    let state: 'down' | 'no database' | 'ready' = 'down';
    const m = machine([], {
      isRoot: true,
      path: `${bin}:${join(dir, 'pg')}`,
      checkPostgres: async () =>
        state === 'down'
          ? { reason: 'connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' }
          : state === 'no database'
            ? { reason: 'database "test" does not exist', code: '3D000' }
            : undefined,
    });
    mkdirSync(join(dir, 'pg'));
    fakeExecutable(join(dir, 'pg', 'pg_ctlcluster'));
    m.options.run = (command) => {
      m.ran.push(command.join(' '));
      if (command.join(' ') === 'service postgresql start') state = 'no database';
      if (command.join(' ') === 'runuser -u postgres -- createdb test') state = 'ready';
      return 0;
    };
    expect(await ensurePrerequisites(m.options)).toBe(0);
    expect(changes(m.ran)).toEqual(['service postgresql start', 'runuser -u postgres -- createdb test']);
  });

  it('PostgreSQL refusing the login gets advice, not a command it cannot know', async () => {
    const { options, ran, out } = machine([], {
      checkPostgres: async () => ({
        reason: 'password authentication failed for user "postgres"',
        code: '28P01',
      }),
    });
    expect(await ensurePrerequisites(options)).toBe(1);
    expect(changes(ran)).toEqual([]);
    expect(out.join('\n')).toMatch(/host all all 127\.0\.0\.1\/32 trust/);
  });

  it('npm test stops in seconds, before any runner, when a PATH without the sandbox commands cannot install', async () => {
    // No apt-get and no sudo in this PATH either, so nothing can be installed, root or not.
    const started = performance.now();
    const { status, stdout, stderr } = await runTestScript({ ...process.env, PATH: bin }, 60_000);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(status, stdout + stderr).toBe(1);
    expect(stderr).toMatch(/^ {2}(sudo )?apt-get install -y .*bubblewrap slirp4netns iproute2 util-linux/m);
    expect(stdout).not.toContain('[test] vitest');
    expect(stdout).not.toContain('[test] playwright');
  });
});

/**
 * `node scripts/test.mjs` in its own process group: should the check wrongly pass, the whole group
 * (the test runners included) is killed at the deadline rather than left running.
 */
function runTestScript(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'test.mjs')], {
      cwd: ROOT,
      env,
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
