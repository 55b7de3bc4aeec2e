// Sockets a connection hands a server (the user's file provider): bound read-only at their path
// under /run inside the sandbox, still connectable there, their host path invisible; an unsandboxed
// server gets the host path. The variable naming the socket follows where the process runs.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBubblewrapLauncher } from '../src/bubblewrap-launcher.js';
import { bwrapArguments } from '../src/bwrap-arguments.js';
import type { LaunchExtras, SandboxServer } from '../src/launch-spec.js';
import { hostTempDir, requireSandbox, run } from './support/run-launch.js';

const TOOL_PATH = '/run/ferry/test.sock';
let dir: string;
let socketPath: string;
let listener: Server;
let connections = 0;

beforeAll(async () => {
  await requireSandbox();
  dir = await hostTempDir('ferry-sockets-');
  // As the provider's: a directory only Ferry may enter, a socket anyone who reaches it may use.
  const socketDir = join(dir, 'sockets');
  await mkdir(socketDir, { mode: 0o700 });
  socketPath = join(socketDir, 'alice.sock');
  listener = createServer((socket) => {
    connections += 1;
    socket.on('error', () => {}).end('hello from the host\n');
  });
  await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
  await chmod(socketPath, 0o666);
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener?.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/** Node inside the launch: reads what the socket named by $SOCK says (with $TAMPER, first tries to remove it). */
const CLIENT = `
const net = require('node:net'), fs = require('node:fs');
const path = process.env.SOCK;
const out = { path, token: process.env.TOKEN ?? null, arg: process.argv[1] ?? null };
if (process.env.TAMPER) {
  try { fs.unlinkSync(path); out.unlink = 'removed'; } catch (e) { out.unlink = e.code; }
  try { fs.writeFileSync('/run/ferry/planted', 'x'); out.plant = 'written'; } catch (e) { out.plant = e.code; }
}
const s = net.connect(path);
let data = '';
s.on('data', (d) => { data += d; });
s.on('end', () => { out.data = data; console.log(JSON.stringify(out)); });
s.on('error', (e) => { out.error = e.code; console.log(JSON.stringify(out)); });
`;

const nodeServer = (extra: Partial<SandboxServer> = {}): SandboxServer => ({
  name: 'client',
  command: process.execPath,
  args: ['-e', CLIENT, '{{fileProviderUrl}}'],
  env: { TOKEN: 'Bearer {{fileProviderToken}}' },
  sandbox: 'required',
  network: false,
  ...extra,
});

const extras = (env: Record<string, string> = {}): LaunchExtras => ({
  env: { FROM_EXTRAS: '1', ...env },
  sockets: [{ hostPath: socketPath, toolPath: TOOL_PATH, env: 'SOCK' }],
  placeholders: {
    fileProviderUrl: 'http://ferry.test/api/file-provider/alice/mcp',
    fileProviderToken: 'tok',
  },
});

const outputOf = (stdout: string) => JSON.parse(stdout.trim()) as Record<string, string | null>;

describe('sockets of a launch', () => {
  it('sandboxed: bound read-only at its tool path, connectable, the variable names the tool path', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces'), mode: 'required' });
    const before = connections;
    const ran = await run(await launcher(nodeServer(), 'alice', extras({ TAMPER: '1' })));
    expect(ran.code, ran.stderr).toBe(0);
    const out = outputOf(ran.stdout);
    expect(out.path).toBe(TOOL_PATH);
    expect(out.data).toBe('hello from the host\n');
    expect(connections).toBe(before + 1);
    // The bind is read-only and /run/ferry is not the tool's: neither removable nor writable.
    expect(['EROFS', 'EACCES', 'EBUSY', 'EPERM']).toContain(out.unlink);
    expect(['EROFS', 'EACCES', 'EPERM']).toContain(out.plant);
    // Placeholders filled from the extras, in args and env values alike.
    expect(out.arg).toBe('http://ferry.test/api/file-provider/alice/mcp');
    expect(out.token).toBe('Bearer tok');
    // The host's socket is untouched.
    expect(await readdir(join(dir, 'sockets'))).toEqual(['alice.sock']);
  });

  it('sandboxed without extras: no /run/ferry, no variable, placeholders refused', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces'), mode: 'required' });
    const ran = await run(
      await launcher(
        nodeServer({
          args: ['-e', 'console.log(require("node:fs").existsSync("/run/ferry"), process.env.SOCK)'],
          env: {},
        }),
        'alice',
      ),
    );
    expect(ran.stdout).toBe('false undefined\n');
    // A template naming the provider without its values is the host's mistake: loud, not ''.
    await expect(launcher(nodeServer(), 'alice')).rejects.toThrow(
      /no value for the placeholder \{\{fileProvider(Url|Token)\}\}/,
    );
  });

  it('the host path of the socket is not visible inside the sandbox', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces'), mode: 'required' });
    const ran = await run(
      await launcher(nodeServer({ env: { SOCK: socketPath }, args: ['-e', CLIENT] }), 'alice', {
        env: {},
        sockets: [],
      }),
    );
    expect(outputOf(ran.stdout).error).toBe('ENOENT');
  });

  it('unsandboxed: the variable names the host path, nothing is bound', async () => {
    const launcher = createBubblewrapLauncher({
      workspacesRoot: join(dir, 'workspaces'),
      allowServerOff: true,
      onWarning: () => {},
    });
    const spec = await launcher(nodeServer({ sandbox: 'off' }), 'alice', extras());
    expect(spec.env.SOCK).toBe(socketPath);
    expect(spec.env.FROM_EXTRAS).toBe('1');
    expect(spec.args.at(-1)).toBe('http://ferry.test/api/file-provider/alice/mcp');
    const out = outputOf((await run(spec)).stdout);
    expect(out.data).toBe('hello from the host\n');
  });

  it('refuses a socket path inside outside /run, or not normal', async () => {
    const launcher = createBubblewrapLauncher({ workspacesRoot: join(dir, 'workspaces'), mode: 'required' });
    for (const toolPath of ['/tmp/alice/fp.sock', '/run/../etc/fp.sock', 'run/fp.sock', '/run/']) {
      await expect(
        launcher(nodeServer(), 'alice', { ...extras(), sockets: [{ hostPath: socketPath, toolPath }] }),
        toolPath,
      ).rejects.toThrow(/must be a normal path under \/run\//);
    }
  });
});

describe('bwrapArguments with sockets', () => {
  it('makes /run and its subdirectories (0755) and binds each socket read-only', () => {
    const { options } = bwrapArguments({
      username: 'alice',
      hostDir: '/srv/ws/alice',
      inputDir: '/srv/ws/alice/input_files',
      network: false,
      system: [{ kind: 'bind', path: '/usr' }],
      etc: { passwd: '/srv/state/passwd', group: '/srv/state/group' },
      programRoots: [],
      binds: [],
      sockets: [{ hostPath: '/var/tmp/ferry-fp-x/alice.sock', toolPath: '/run/ferry/file-provider.sock' }],
      masks: { dirs: [], files: [] },
      env: {},
      cwd: '/tmp/alice',
      identity: { kind: 'userns', uid: 1000, gid: 1000 },
      tmpBytes: null,
      command: '/usr/bin/node',
      args: [],
    });
    const joined = options.join(' ');
    expect(joined).toContain('--perms 0755 --dir /run --perms 0755 --dir /run/ferry');
    expect(joined).toContain('--ro-bind /var/tmp/ferry-fp-x/alice.sock /run/ferry/file-provider.sock');
    expect(joined).not.toMatch(/--bind \/var\/tmp\/ferry-fp-x/);
  });
});
