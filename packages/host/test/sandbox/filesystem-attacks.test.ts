// Attack corpus, part 1: a tool inside the sandbox tries to write where it must not, and to read
// what is not its own. Each test asserts the attempt failed *inside* (the errno the tool saw), that
// the host file system shows no trace of it, and that legitimate work still succeeds after it.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectLegitimateWork,
  openSandboxedHost,
  type SandboxedHost,
  sha256,
  upload,
} from './support/sandboxed-host.js';

let env: SandboxedHost;
let bobDir: string;
const PASSWD = '/etc/passwd';
let passwdHash: string;

beforeAll(async () => {
  env = await openSandboxedHost({ users: ['alice', 'bob'] });
  bobDir = join(env.workspacesRoot, 'bob');
  await mkdir(bobDir, { recursive: true, mode: 0o700 });
  await writeFile(join(bobDir, 'secret.txt'), 'bob’s secret');
  passwdHash = sha256(await readFile(PASSWD));
});
afterAll(() => env?.close());

const fsOp = async (op: string, path: string, extra: Record<string, unknown> = {}) =>
  (await env.call('alice', 'attack', 'fs_op', { op, path, ...extra })).results;
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('writes outside the workspace fail', () => {
  it('write a new file into /etc', async () => {
    const result = await fsOp('write', '/etc/ferry-attack');
    expect(result).toMatchObject({ ok: false });
    // /etc inside is a directory of root's with a few entries bound in: not the host's.
    expect(['EROFS', 'EACCES']).toContain(result.error);
    expect(await exists('/etc/ferry-attack')).toBe(false);
    await expectLegitimateWork(env, 'alice');
  });

  it('overwrite /etc/passwd', async () => {
    const result = await fsOp('append', PASSWD, { content: 'evil::0:0::/:/bin/sh\n' });
    expect(result).toMatchObject({ ok: false });
    expect(['EROFS', 'EACCES']).toContain(result.error);
    // What it sees there is the generated file: itself and nothing of the host's accounts.
    const seen = await fsOp('read', PASSWD);
    expect(seen.data).toMatch(/^alice:x:\d+:\d+:Ferry sandbox:\/tmp\/alice:/m);
    expect(seen.data).not.toMatch(/^(daemon|postgres|www-data):/m);
    expect(sha256(await readFile(PASSWD))).toBe(passwdHash);
    await expectLegitimateWork(env, 'alice');
  });

  it('write into another user’s workspace at /tmp/bob/', async () => {
    expect(await fsOp('write', '/tmp/bob/stolen.txt')).toMatchObject({ ok: false, error: 'ENOENT' });
    expect(await exists(join(bobDir, 'stolen.txt'))).toBe(false);
    expect(await exists('/tmp/bob')).toBe(false);
    await expectLegitimateWork(env, 'alice');
  });

  it('write into another user’s workspace by its host path', async () => {
    const result = await fsOp('write', join(bobDir, 'stolen.txt'));
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toBe('ENOENT');
    expect(await exists(join(bobDir, 'stolen.txt'))).toBe(false);
    await expectLegitimateWork(env, 'alice');
  });

  it('write into the host’s data directory (the FileStore)', async () => {
    const result = await fsOp('write', join(env.dataDir, 'catalog.db'), { content: 'corrupted' });
    expect(result).toMatchObject({ ok: false });
    // Not even there: the data directory is not on the allow-list.
    expect(result.error).toBe('ENOENT');
    expect((await readFile(join(env.dataDir, 'catalog.db'))).toString('latin1')).not.toContain('corrupted');
    await expectLegitimateWork(env, 'alice');
  });

  it('change the user’s own input_files/ (write, chmod, rename, delete, add a file)', async () => {
    await upload(env, 'alice', 'sales.csv', 'region,sales\nNorth,1\n');
    const { response, results } = await env.call('alice', 'attack', 'tamper_input', {
      filename: 'sales.csv',
    });
    expect(response.status).toBe('finished');
    expect(results.read).toEqual({ ok: true, data: 'region,sales\nNorth,1\n' });
    for (const attempt of ['write', 'chmod', 'rename', 'remove', 'create']) {
      expect(results[attempt], attempt).toMatchObject({ ok: false });
      // A rename out of the read-only mount is refused as a cross-mount move; the directory and
      // its files are Ferry's, not the sandbox user's.
      expect(['EROFS', 'EXDEV', 'EACCES', 'EPERM'], attempt).toContain(
        (results[attempt] as { error: string }).error,
      );
    }
    const ws = await env.host.workspaces.forUser('alice');
    expect(await readFile(join(ws.inputDir, 'sales.csv'), 'utf8')).toBe('region,sales\nNorth,1\n');
    expect(await exists(join(ws.inputDir, 'planted.txt'))).toBe(false);
    await expectLegitimateWork(env, 'alice');
  });

  it('write through a symlink planted in the workspace', async () => {
    expect(await fsOp('symlink', '/tmp/alice/to-passwd', { target: PASSWD })).toMatchObject({ ok: true });
    const result = await fsOp('append', '/tmp/alice/to-passwd', { content: 'evil\n' });
    expect(result).toMatchObject({ ok: false });
    expect(['EROFS', 'EACCES']).toContain(result.error);
    expect(sha256(await readFile(PASSWD))).toBe(passwdHash);
    await expectLegitimateWork(env, 'alice');
  });

  it('write into the kernel’s settings under /proc/sys and /sys (drop the host’s page cache)', async () => {
    const paths = [
      '/proc/sys/vm/drop_caches',
      '/proc/sys/kernel/domainname',
      '/sys/kernel/mm/transparent_hugepage/enabled',
    ];
    for (const path of paths) {
      const result = await fsOp('write', path, { content: 'x' });
      expect(result, path).toMatchObject({ ok: false });
      expect(['EROFS', 'EACCES', 'EPERM', 'ENOENT']).toContain(result.error);
    }
    await expectLegitimateWork(env, 'alice');
  });
});

describe('reads of what is not the user’s fail', () => {
  it('fill the host’s memory through the writable tmpfs mounts (/var/tmp, /dev/shm) or write into /dev, /run and /tmp', async () => {
    for (const path of ['/dev/evil', '/tmp/evil']) {
      const result = await fsOp('write', path);
      expect(result, path).toMatchObject({ ok: false });
      expect(['EROFS', 'EACCES'], path).toContain(result.error);
    }
    expect(await fsOp('write', '/run/evil')).toMatchObject({ ok: false, error: 'ENOENT' });
    // Files under the 64 MiB file-size limit, until the tmpfs is full (256 MiB each by default).
    // du -x: only the tmpfs itself, not mounts under it (the workspace, a program dir under /tmp).
    const fill = (dir: string) =>
      `for i in 1 2 3 4 5 6 7 8; do head -c 50M /dev/zero > ${dir}/f$i || break; done; du -smx ${dir} | cut -f1; rm -f ${dir}/f*`;
    const filled = await env.call('alice', 'attack', 'run', {
      command: '/bin/sh',
      args: ['-c', `${fill('/var/tmp')}; ${fill('/dev/shm')}`],
    });
    expect(filled.results.stderr).toMatch(/No space left on device/);
    const sizes = String(filled.results.stdout).trim().split('\n').map(Number);
    expect(sizes).toHaveLength(2);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(257);
    await expectLegitimateWork(env, 'alice');
  });

  it('read another user’s workspace at /tmp/bob/ (it does not exist in this sandbox)', async () => {
    expect(await fsOp('read', '/tmp/bob/secret.txt')).toMatchObject({ ok: false, error: 'ENOENT' });
    const listed = await fsOp('list', '/tmp');
    expect(listed.ok).toBe(true);
    expect(listed.data).toContain('alice');
    expect(listed.data).not.toContain('bob');
    // Nor can she make one: /tmp is read-only but for her own workspace (v2.1 §5.1).
    const made = await fsOp('mkdir', '/tmp/bob');
    expect(made).toMatchObject({ ok: false });
    expect(['EROFS', 'EACCES', 'ENOENT']).toContain(made.error);
    expect(await exists(join(bobDir, 'secret.txt'))).toBe(true);
    expect(await exists(join(bobDir, 'secret.txt'))).toBe(true);
    await expectLegitimateWork(env, 'alice');
  });

  it('read another user’s workspace by its host path (the workspaces root does not exist inside)', async () => {
    expect(await fsOp('read', join(bobDir, 'secret.txt'))).toMatchObject({ ok: false, error: 'ENOENT' });
    expect(await fsOp('list', env.workspacesRoot)).toMatchObject({ ok: false, error: 'ENOENT' });
    await expectLegitimateWork(env, 'alice');
  });

  it('read the host’s data directory (catalog and blobs)', async () => {
    expect(await fsOp('list', env.dataDir)).toMatchObject({ ok: false, error: 'ENOENT' });
    expect(await fsOp('read', join(env.dataDir, 'catalog.db'))).toMatchObject({ ok: false, error: 'ENOENT' });
    await expectLegitimateWork(env, 'alice');
  });

  it('read /etc/shadow', async () => {
    const result = await fsOp('read', '/etc/shadow');
    // Covered by /dev/null (or unreadable): never a password hash.
    if (result.ok) expect(result.data).toBe('');
    else expect(['EACCES', 'EPERM', 'ENOENT']).toContain(result.error);
    await expectLegitimateWork(env, 'alice');
  });

  it('read the host’s paths from the sandbox’s PID 1 command line', async () => {
    const { results } = await env.call('alice', 'attack', 'inspect');
    const text = JSON.stringify(results);
    expect(text).not.toContain(env.workspacesRoot);
    expect(text).not.toContain(env.dataDir);
    await expectLegitimateWork(env, 'alice');
  });

  it('connect to a host service’s unix socket under /run (PostgreSQL)', async () => {
    const { results } = await env.call('alice', 'attack', 'net_connect', {
      host: '/run/postgresql/.s.PGSQL.5432',
      port: 0,
    });
    expect(results).toMatchObject({ ok: false, error: 'ENOENT' });
    await expectLegitimateWork(env, 'alice');
  });
});

describe('escaping the sandbox itself fails', () => {
  const run = async (command: string, args: string[]) =>
    (await env.call('alice', 'attack', 'run', { command, args })).results;

  it('create a device node (mknod)', async () => {
    const result = await run('mknod', ['/tmp/alice/zero', 'c', '1', '5']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Operation not permitted/);
    await expectLegitimateWork(env, 'alice');
  });

  it('unmount the private /tmp, or mount something over it', async () => {
    expect((await run('umount', ['-l', '/tmp'])).status).not.toBe(0);
    expect((await run('mount', ['-t', 'tmpfs', 'none', '/tmp/alice'])).status).not.toBe(0);
    expect(await fsOp('read', '/tmp/bob/secret.txt')).toMatchObject({ ok: false, error: 'ENOENT' });
    await expectLegitimateWork(env, 'alice');
  });

  it('gain capabilities through a nested user namespace', async () => {
    const result = await run('unshare', ['-Ur', 'id', '-u']);
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toBe('0\n');
    const status = await fsOp('read', '/proc/self/status');
    expect(status.data).toMatch(/CapEff:\s+0000000000000000/);
    await expectLegitimateWork(env, 'alice');
  });
});
