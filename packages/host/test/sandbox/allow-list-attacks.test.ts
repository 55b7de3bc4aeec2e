// Attack corpus, part 4 (Sandbox v2): the findings of the attack run at 106ac5c, each as a test
// that failed there. Ferry runs from a checkout under /tmp with its default data dir ./.ferry and
// its config inside the checkout; the tool is a Python server (standard library only) living in
// that same checkout, so its program tree is bound, and user B's tool tries to read user A's
// blobs, workspace and Ferry's config through it. Then the rest of the host, as root: /root,
// /home, /var, /srv…, a root-owned 0600 file, and, with network: true, every listener of the host.
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { probeSandbox } from '@ferry/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/servers.js';
import { openSandboxedHost, type SandboxedHost, upload } from './support/sandboxed-host.js';

let checkout: string;
let privateDir: string;
let env: SandboxedHost;
let dataDir: string;
let configPath: string;
let aliceBlob: string;
let listener: Server;
let ferryPort: number;
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error('these tests assert what root-run Ferry hides; run them as root (CI does)');
  checkout = await mkdtemp('/tmp/ferry-checkout-');
  // As git clone leaves it (mkdtemp makes it 0700).
  await chmod(checkout, 0o755);
  privateDir = await mkdtemp('/var/tmp/ferry-private-');
  await cp(join(REPO_ROOT, 'examples/servers/python/stdlib_server.py'), join(privateDir, 'server.py'));
  await writeFile(join(checkout, 'package.json'), '{ "name": "ferry", "private": true }\n');
  await cp(join(REPO_ROOT, 'examples/servers/python/stdlib_server.py'), join(checkout, 'stdlib_server.py'));
  // A root-only secret in the bound tree: visible by name, never readable by the sandbox user.
  await writeFile(join(checkout, 'secret.key'), 'root only');
  await chmod(join(checkout, 'secret.key'), 0o600);
  dataDir = join(checkout, '.ferry');
  configPath = join(checkout, 'ferry.config.json');
  await writeFile(
    configPath,
    JSON.stringify({ servers: {}, headers: { Authorization: 'Bearer config-secret' } }),
  );
  const python = {
    transport: 'stdio' as const,
    command: '/usr/bin/python3',
    args: [join(checkout, 'stdlib_server.py')],
    cwd: checkout,
    sandbox: 'required' as const,
  };
  env = await openSandboxedHost({
    users: ['alice', 'bob'],
    servers: {
      py: python,
      online: { ...python, network: true },
      // Its script lies in a directory only root may enter (mkdtemp: 0700).
      hidden: { ...python, args: [join(privateDir, 'server.py')], cwd: '/' },
    },
    layout: { dir: checkout, dataDir, workspacesRoot: join(dataDir, 'workspaces'), hide: [configPath] },
  });
  // Alice's upload (a blob under .ferry/) and a file in her workspace.
  const stored = await upload(env, 'alice', 'alice-private.csv', 'alice,secret\n');
  aliceBlob = (await findFile(dataDir, stored.id)) ?? '';
  expect(aliceBlob).not.toBe('');
  const ws = await env.host.workspaces.forUser('alice');
  await writeFile(join(ws.hostDir, 'notes.txt'), 'alice workspace secret');

  listener = createServer((socket) => socket.on('error', () => {}).end('ferry api\n'));
  await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
  ferryPort = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  listener?.close();
  await env?.close();
  await rm(checkout, { recursive: true, force: true });
  await rm(privateDir, { recursive: true, force: true });
});

/** The blob file holding a stored file: its name contains the file id. */
async function findFile(dir: string, id: string): Promise<string | undefined> {
  const { readdir } = await import('node:fs/promises');
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.includes(id)) return join(entry.parentPath, entry.name);
  }
  return undefined;
}

type Outcome = { ok: boolean; data?: unknown; error?: string };
const fsOp = async (user: string, op: string, path: string, content?: string): Promise<Outcome> =>
  (await env.call(user, 'py', 'fs_op', { op, path, ...(content === undefined ? {} : { content }) }))
    .results as Outcome;
const connectFrom = async (server: string, host: string, port: number): Promise<Outcome> =>
  (await env.call('bob', server, 'connect', { host, port })).results as Outcome;

describe('a checkout under /tmp holding ./.ferry and ferry.config.json (the program’s own tree is bound)', () => {
  it('the program runs from the checkout, as the sandbox user', async () => {
    const { results } = await env.call('bob', 'py', 'whoami');
    const probe = await probeSandbox({ mode: 'required' });
    expect(results).toMatchObject({
      uid: probe.runsAs?.uid,
      cwd: checkout,
      workspace_exists: true,
      tmpdir: '/var/tmp',
    });
    expect(results.uid).not.toBe(0);
  });

  it('Ferry’s data dir inside the checkout is an empty, unreadable mount', async () => {
    const listed = await fsOp('bob', 'list', dataDir);
    expect(listed.ok ? listed.data : listed.error).not.toContain('catalog.db');
    if (listed.ok) expect(listed.data).toEqual([]);
    else expect(listed.error).toBe('EACCES');
  });

  it('user A’s uploaded blob cannot be read by user B’s tool', async () => {
    const read = await fsOp('bob', 'read', aliceBlob);
    expect(read.ok).toBe(false);
    expect(JSON.stringify(read)).not.toContain('alice,secret');
  });

  it('the catalog database cannot be read', async () => {
    const read = await fsOp('bob', 'read', join(dataDir, 'catalog.db'));
    expect(read).toMatchObject({ ok: false });
  });

  it('user A’s workspace file cannot be read by its host path', async () => {
    const read = await fsOp('bob', 'read', join(dataDir, 'workspaces', 'alice', 'notes.txt'));
    expect(read).toMatchObject({ ok: false });
  });

  it('user A’s workspace does not exist at /tmp/alice in B’s sandbox', async () => {
    expect(await fsOp('bob', 'read', '/tmp/alice/notes.txt')).toMatchObject({ ok: false, error: 'ENOENT' });
  });

  it('Ferry’s config file in the checkout is covered', async () => {
    const read = await fsOp('bob', 'read', configPath);
    expect(JSON.stringify(read)).not.toContain('config-secret');
    if (read.ok) expect(read.data).toBe('');
  });

  it('a root-owned 0600 file in the bound tree is unreadable (the sandbox user is not root)', async () => {
    expect(await fsOp('bob', 'read', join(checkout, 'secret.key'))).toMatchObject({
      ok: false,
      error: 'EACCES',
    });
    expect(await readFile(join(checkout, 'secret.key'), 'utf8')).toBe('root only');
  });

  it('a program the sandbox user cannot read does not start, and the call says which path, in one line', async () => {
    const { response } = await env.call('bob', 'hidden', 'whoami');
    expect(response.status).toBe('failed');
    expect(response.forUi.error?.meta_data).toMatchObject({ error_code: 'E_TOOL_UNAVAILABLE' });
    const message = response.forModel.error?.message ?? '';
    expect(message).toContain(`${privateDir} is not readable by the sandbox user`);
    expect(message).toContain('mode 0700');
    expect(message).not.toContain('\n');
  });

  it('the bound checkout is read-only', async () => {
    const wrote = await fsOp('bob', 'write', join(checkout, 'stdlib_server.py'), 'evil');
    expect(wrote).toMatchObject({ ok: false });
    expect(['EROFS', 'EACCES']).toContain(wrote.error);
  });
});

describe('nothing else of the host exists inside', () => {
  const absent = [
    '/root',
    '/home',
    '/var/lib',
    '/var/log',
    '/var/run',
    '/srv',
    '/opt',
    '/mnt',
    '/media',
    '/boot',
    '/run',
    '/sys',
    '/etc/shadow',
    '/etc/gshadow',
    '/etc/ssh',
    '/etc/postgresql',
    '/etc/hostname',
    '/etc/machine-id',
    '/work',
  ];
  it.each(absent)('%s', async (path) => {
    expect(await fsOp('bob', 'stat', path)).toMatchObject({ ok: false, error: 'ENOENT' });
  });

  it('/tmp holds only the user’s own workspace (and trees bound for the program), read-only', async () => {
    const listed = await fsOp('bob', 'list', '/tmp');
    expect(listed.data).toContain('bob');
    expect(listed.data).not.toContain('alice');
    for (const path of ['/tmp/x', '/tmp/alice/x', '/tmp/otheruser/x']) {
      const wrote = await fsOp('bob', 'write', path, 'x');
      expect(wrote, path).toMatchObject({ ok: false });
      expect(['EROFS', 'EACCES', 'ENOENT'], path).toContain(wrote.error);
    }
    expect(await fsOp('bob', 'write', '/tmp/bob/ok.txt', 'x')).toEqual({ ok: true });
    expect(await fsOp('bob', 'write', '/var/tmp/scratch.txt', 'x')).toEqual({ ok: true });
  });
});

describe('network: true reaches nothing of the host', () => {
  const targets = (): [string, string, number][] => [
    ['Ferry’s port on loopback', '127.0.0.1', ferryPort],
    ['PostgreSQL on loopback', '127.0.0.1', 5432],
    ['Redis on loopback', '127.0.0.1', 6379],
    ['Ferry’s port through the stack’s gateway', '10.113.0.2', ferryPort],
    ['PostgreSQL through the stack’s gateway', '10.113.0.2', 5432],
    ...(external
      ? ([
          ['Ferry’s port on the host’s own address', external, ferryPort],
          ['PostgreSQL on the host’s own address', external, 5432],
          ['Redis on the host’s own address', external, 6379],
        ] as [string, string, number][])
      : []),
  ];

  it('the host itself reaches Ferry’s port, PostgreSQL and Redis (so a refusal inside means something)', async () => {
    const { connect } = await import('node:net');
    for (const port of [ferryPort, 5432, 6379]) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve();
        });
        socket.on('error', reject);
      });
    }
  });

  it('every listener of the host, through every address', async () => {
    expect(external, 'this machine has a non-loopback IPv4 address').toBeDefined();
    for (const [what, host, port] of targets()) {
      const outcome = await connectFrom('online', host, port);
      expect(outcome, `${what}: ${JSON.stringify(outcome)}`).toMatchObject({ ok: false });
    }
  });

  it('the same tool without network: true has no route at all', async () => {
    const outcome = await connectFrom('py', external ?? '192.0.2.1', ferryPort);
    expect(outcome).toMatchObject({ ok: false, error: 'ENETUNREACH' });
  });
});
