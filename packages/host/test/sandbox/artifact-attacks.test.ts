// Attack corpus, part 2: the tool runs in the sandbox, but the *host* reads the files it names.
// Every hostile path must be refused by the host (E_INVALID_PATH / E_FILE_TOO_LARGE with the spec's
// fields) without reading a byte of what lies outside, and nothing of it may reach My Files.
import { link, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { processesWith } from '@ferry/test-helpers/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTACK_SERVER,
  type Called,
  expectLegitimateWork,
  MAX_FILE_MB,
  openSandboxedHost,
  readStored,
  rejectedCodes,
  type SandboxedHost,
} from './support/sandboxed-host.js';

let env: SandboxedHost;
let secret: string;
let bobSecret: string;
const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE';
const GIB2 = 2 * 1024 ** 3;
/** A line of the attack server's swapper script, which shows in its command line. */
const SWAPPER_MARK = 'fs.renameSync(tmp, path)';

beforeAll(async () => {
  env = await openSandboxedHost({
    users: ['alice', 'bob', 'tom'],
    // The same server without a file-size limit, so a 2 GiB sparse file exists for the host to refuse.
    servers: { attack: ATTACK_SERVER, sparse: ATTACK_SERVER },
    launcher: { serverLimits: { sparse: { fileSizeBytes: null } } },
  });
  secret = join(env.dir, 'outside-secret.txt');
  await writeFile(secret, SECRET);
  await mkdir(join(env.workspacesRoot, 'bob'), { recursive: true, mode: 0o700 });
  bobSecret = join(env.workspacesRoot, 'bob', 'secret.txt');
  await writeFile(bobSecret, SECRET);
});
afterAll(() => env?.close());

const artifact = (path: string, as: 'artifact' | 'deferred' = 'artifact') =>
  env.call('alice', 'attack', 'artifact', { path, as });
const fsOp = (op: string, path: string, extra: Record<string, unknown> = {}, server = 'attack') =>
  env.call('alice', server, 'fs_op', { op, path, artifact: true, ...extra });

/** Refused with E_INVALID_PATH and the §12.2 fields; nothing stored, nothing secret anywhere. */
async function expectRefused(called: Called, reason?: RegExp): Promise<void> {
  expect(called.response.status).toBe('finished');
  expect(called.response.forUi.files).toEqual([]);
  expect(rejectedCodes(called)).toContain('E_INVALID_PATH');
  const rejected = called.response.forUi.rejected.find((r) => r.code === 'E_INVALID_PATH');
  expect(rejected?.error?.meta_data).toMatchObject({
    error_code: 'E_INVALID_PATH',
    reason: 'SecurityViolation',
    details: { allowed_prefix: '/tmp/alice/' },
  });
  if (reason) expect(rejected?.reason).toMatch(reason);
  expect(JSON.stringify(called.response)).not.toContain(SECRET);
}

describe('artifact paths that lead outside the workspace are refused', () => {
  // Paths are read when the test runs: bobSecret and the data directory exist only after beforeAll.
  it.each<[string, () => string, ('artifact' | 'deferred')?]>([
    ['../../etc/passwd', () => '../../etc/passwd'],
    ['/tmp/alice/../../etc/passwd', () => '/tmp/alice/../../etc/passwd'],
    ['an absolute path elsewhere: /etc/passwd', () => '/etc/passwd'],
    ['the host path of another user’s file', () => bobSecret],
    ['a deferred artifact in the host’s data directory', () => join(env.dataDir, 'catalog.db'), 'deferred'],
    ['another user’s workspace as the sandbox names it: /tmp/bob/secret.txt', () => '/tmp/bob/secret.txt'],
  ])('%s', async (_, path, as) => {
    await expectRefused(await artifact(path(), as));
    await expectLegitimateWork(env, 'alice');
  });

  it('the workspace itself, or a directory in it', async () => {
    await expectRefused(await artifact('/tmp/alice'));
    await env.call('alice', 'attack', 'fs_op', { op: 'mkdir', path: '/tmp/alice/adir' });
    await expectRefused(await artifact('/tmp/alice/adir'), /directory/);
    await expectLegitimateWork(env, 'alice');
  });
});

describe('files in the workspace that are not what they seem are refused', () => {
  it('a symlink to a file outside (/etc/passwd)', async () => {
    await expectRefused(
      await fsOp('symlink', '/tmp/alice/passwd.txt', { target: '/etc/passwd' }),
      /symbolic link/,
    );
    await expectLegitimateWork(env, 'alice');
  });

  it('a symlink to another user’s file by its host path', async () => {
    await expectRefused(await fsOp('symlink', '/tmp/alice/bob.txt', { target: bobSecret }), /symbolic link/);
    await expectLegitimateWork(env, 'alice');
  });

  it('a file under a symlinked directory that leads to the host’s data directory', async () => {
    await env.call('alice', 'attack', 'fs_op', {
      op: 'symlink',
      path: '/tmp/alice/updir',
      target: env.dataDir,
    });
    await expectRefused(await artifact('/tmp/alice/updir/catalog.db'), /leaves the workspace/);
    await expectLegitimateWork(env, 'alice');
  });

  it('a symlink swapped in after the check (TOCTOU): every read is the real file or a refusal', async () => {
    // Its own user: the swappers keep changing files after each call, which the next calls of
    // that user would find (and store) as files written during them.
    try {
      for (let round = 0; round < 12; round++) {
        const called = await env.call('tom', 'attack', 'swap_symlink', {
          name: `swap${round}.txt`,
          target: secret,
          ms: 1500,
        });
        expect(called.response.status).toBe('finished');
        for (const file of called.response.forUi.files) {
          // The real file, or one of the swapper's temp files caught while it was being written.
          expect('legit'.startsWith((await readStored(env, 'tom', file.id)).toString())).toBe(true);
        }
        for (const rejected of called.response.forUi.rejected) {
          expect(rejected.code).toMatch(/E_INVALID_PATH|E_FILE_NOT_FOUND/);
        }
        expect(JSON.stringify(called.response)).not.toContain(SECRET);
      }
    } finally {
      // The swappers stop on their own; wait for them, so they do not outlive the test file.
      for (const end = Date.now() + 10_000; processesWith(SWAPPER_MARK).length > 0 && Date.now() < end; ) {
        await delay(100);
      }
    }
    await expectLegitimateWork(env, 'tom');
  });

  it('a FIFO (the host must not block on it)', async () => {
    const started = Date.now();
    await expectRefused(await fsOp('mkfifo', '/tmp/alice/pipe'), /FIFO/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expectLegitimateWork(env, 'alice');
  });

  it('/dev/zero through a symlink, and /dev/zero itself', async () => {
    await expectRefused(
      await fsOp('symlink', '/tmp/alice/zeros.bin', { target: '/dev/zero' }),
      /symbolic link/,
    );
    await expectRefused(await artifact('/dev/zero'));
    await expectLegitimateWork(env, 'alice');
  });

  it('a hard link to a file outside, made inside the sandbox (the kernel refuses it: EXDEV)', async () => {
    for (const target of ['/etc/passwd', '/tmp/alice/input_files']) {
      const called = await fsOp('link', '/tmp/alice/hard.txt', { target });
      expect(called.results).toMatchObject({ ok: false });
      expect(['EXDEV', 'EPERM', 'EISDIR']).toContain(called.results.error);
      expect(called.response.forUi.files).toEqual([]);
    }
    await expectLegitimateWork(env, 'alice');
  });

  it('a hard link to a file outside, planted in the workspace (as an unsandboxed tool could)', async () => {
    const ws = await env.host.workspaces.forUser('alice');
    await link(secret, join(ws.hostDir, 'planted.txt'));
    await expectRefused(await artifact('/tmp/alice/planted.txt'), /2 hard links/);
    await expectLegitimateWork(env, 'alice');
  });
});

describe('oversized files are refused without being read', () => {
  it('a 2 GiB sparse file under the file-size limit of the sandbox: EFBIG inside, nothing large stored', async () => {
    const called = await fsOp('truncate', '/tmp/alice/sparse.bin', { size: GIB2 });
    expect(called.results).toMatchObject({ ok: false, error: 'EFBIG' });
    for (const file of called.response.forUi.files) expect(file.size).toBe(0);
    const ws = await env.host.workspaces.forUser('alice');
    expect((await stat(join(ws.hostDir, 'sparse.bin'))).size).toBe(0);
    await expectLegitimateWork(env, 'alice');
  });

  it('a 2 GiB sparse file over My Files’ limit: E_FILE_TOO_LARGE with the sizes, refused at once', async () => {
    const started = Date.now();
    const called = await fsOp('truncate', '/tmp/alice/huge.bin', { size: GIB2 }, 'sparse');
    expect(called.results).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(called.response.forUi.files).toEqual([]);
    const rejected = called.response.forUi.rejected.find((r) => r.code === 'E_FILE_TOO_LARGE');
    expect(rejected?.error?.meta_data).toMatchObject({
      error_code: 'E_FILE_TOO_LARGE',
      details: { file_size_bytes: GIB2, current_limit_bytes: MAX_FILE_MB * 1024 * 1024 },
    });
    await expectLegitimateWork(env, 'alice', 'sparse');
  });
});
