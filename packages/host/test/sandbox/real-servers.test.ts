// Real servers run in the allow-list sandbox unchanged, as root-run Ferry starts them: every
// example server, the published server-everything and server-filesystem (rooted at /, the way the
// attack run used it), a Python server with only the standard library, and one on the Python MCP
// SDK installed by pip into a virtualenv under /tmp, its script in another directory, its
// interpreter outside the system directories (pyenv) where this machine has one.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_BIN, FILESYSTEM_BIN, REPO_ROOT } from '../support/servers.js';
import { openSandboxedHost, readStored, type SandboxedHost } from './support/sandboxed-host.js';

const run = promisify(execFile);
const required = { sandbox: 'required' as const };

/**
 * The enabled stdio servers of the repository's ferry.config.json and test/ferry.test-config.json
 * (which wins for a server in both), as the app would run them.
 */
async function exampleServers(): Promise<Record<string, Record<string, unknown>>> {
  const read = async (path: string) =>
    (
      JSON.parse(await readFile(join(REPO_ROOT, path), 'utf8')) as {
        servers: Record<string, Record<string, unknown>>;
      }
    ).servers;
  const all = { ...(await read('ferry.config.json')), ...(await read('test/ferry.test-config.json')) };
  const servers: Record<string, Record<string, unknown>> = {};
  for (const [name, server] of Object.entries(all)) {
    if (server.transport === 'stdio' && server.enabled !== false) {
      servers[name] = { ...server, cwd: REPO_ROOT, ...required };
    }
  }
  return servers;
}

let env: SandboxedHost;
let examples: string[];
beforeAll(async () => {
  const servers = await exampleServers();
  examples = Object.keys(servers);
  env = await openSandboxedHost({
    users: ['alice'],
    servers: {
      ...servers,
      everything: {
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_BIN, 'stdio'],
        ...required,
      },
      filesystem: { transport: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, '/'], ...required },
      'py-stdlib': {
        transport: 'stdio',
        command: 'python3',
        args: ['examples/servers/python/stdlib_server.py'],
        cwd: REPO_ROOT,
        ...required,
      },
    },
  });
});
afterAll(() => env?.close());

describe('the example servers', () => {
  it('every one of ferry.config.json and the test config lists its tools in the sandbox', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    for (const name of examples) {
      const tools = await env.host.listTools(name, 'alice');
      expect(tools.length, name).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('published servers', () => {
  it('server-everything answers a call', async () => {
    const { response } = await env.call('alice', 'everything', 'echo', { message: 'through the sandbox' });
    expect(response.status).toBe('finished');
    expect(JSON.stringify(response.forModel)).toContain('through the sandbox');
  });

  it('server-filesystem rooted at / sees the allow-list, reads the workspace and nothing of Ferry', async () => {
    const ws = await env.host.workspaces.forUser('alice');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(ws.hostDir, 'hello.txt'), 'hello from the workspace');
    const read = await env.call('alice', 'filesystem', 'read_text_file', { path: '/tmp/alice/hello.txt' });
    expect(JSON.stringify(read.response.forModel)).toContain('hello from the workspace');
    const listed = await env.call('alice', 'filesystem', 'list_directory', { path: '/' });
    const text = JSON.stringify(listed.response.forModel);
    for (const entry of ['usr', 'tmp', 'etc']) expect(text).toContain(`[DIR] ${entry}`);
    for (const entry of ['root', 'home', 'srv', 'opt', 'run', 'boot', 'mnt']) {
      expect(text).not.toContain(`[DIR] ${entry}`);
    }
    // Its own program tree is there (the repository, where node_modules lives), and only that:
    // above it, each directory holds just the next step down (and /tmp the user's workspace).
    const parts = REPO_ROOT.split('/').filter(Boolean);
    for (let depth = 1; depth < parts.length; depth++) {
      const path = `/${parts.slice(0, depth).join('/')}`;
      const above = await env.call('alice', 'filesystem', 'list_directory', { path });
      const content = String((above.response.forModel.results as { content?: unknown }).content);
      const entries = content
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\[(DIR|FILE)\] /, ''));
      const expected = [parts[depth], ...(path === '/tmp' ? ['alice'] : [])].sort();
      expect(entries.sort(), path).toEqual(expected);
    }
    const data = await env.call('alice', 'filesystem', 'list_directory', { path: env.dataDir });
    expect(JSON.stringify(data.response.forModel)).not.toContain('catalog');
  });
});

describe('Python servers', () => {
  it('a standard-library server: runs, finds /tmp/<user>, and its path artifact reaches My Files', async () => {
    const who = await env.call('alice', 'py-stdlib', 'whoami');
    expect(who.results).toMatchObject({
      workspace: '/tmp/alice',
      workspace_exists: true,
      tmpdir: '/var/tmp',
    });
    const { response } = await env.call('alice', 'py-stdlib', 'write_stats', { content: '{"rows": 3}' });
    expect(response.status).toBe('finished');
    const stored = response.forUi.files.find((file) => file.name === 'stats.json');
    expect(stored).toBeDefined();
    expect((await readStored(env, 'alice', stored?.id as string)).toString()).toBe('{"rows": 3}');
  });

  it('an SDK server from a virtualenv under /tmp, its script elsewhere, its interpreter outside /usr', async () => {
    // pyenv's interpreter lives under /root: exactly what a bind of the venv alone would miss.
    const pyenv = '/root/.pyenv/versions/3.11.7/bin/python3';
    const base = existsSync(pyenv) ? pyenv : '/usr/bin/python3';
    const venv = await mkdtemp('/tmp/ferry-py-venv-');
    const scripts = await mkdtemp('/var/tmp/ferry-py-script-');
    try {
      await run(base, ['-m', 'venv', venv], { timeout: 120_000 });
      // This machine's package index is a local mirror; elsewhere, PyPI.
      const index = existsSync('/opt/pypi/simple') ? ['--index-url', 'file:///opt/pypi/simple'] : [];
      await run(join(venv, 'bin/pip'), ['install', '--quiet', ...index, 'mcp'], { timeout: 300_000 }).catch(
        (error: Error) => {
          throw new Error(
            `pip could not install the Python MCP SDK (is a package index reachable here? ${index.length ? 'the local mirror /opt/pypi' : 'PyPI'}): ${error.message}`,
          );
        },
      );
      await cp(join(REPO_ROOT, 'examples/servers/python/sdk_server.py'), join(scripts, 'server.py'));
      const { chmod } = await import('node:fs/promises');
      await chmod(scripts, 0o755);
      await chmod(venv, 0o755);
      const sdk = await openSandboxedHost({
        users: ['alice'],
        servers: {
          sdk: {
            transport: 'stdio',
            command: join(venv, 'bin/python'),
            args: [join(scripts, 'server.py')],
            ...required,
          },
        },
      });
      try {
        const who = await sdk.call('alice', 'sdk', 'whoami');
        expect(who.response.status, JSON.stringify(who.response.forModel)).toBe('finished');
        expect(JSON.stringify(who.response.forModel)).toContain(venv);
        const { response } = await sdk.call('alice', 'sdk', 'write_stats', { content: '{"sdk": true}' });
        expect(response.status).toBe('finished');
        const stored = response.forUi.files.find((file) => file.name === 'stats.json');
        expect((await readStored(sdk, 'alice', stored?.id as string)).toString()).toBe('{"sdk": true}');
      } finally {
        await sdk.close();
      }
    } finally {
      await rm(venv, { recursive: true, force: true });
      await rm(scripts, { recursive: true, force: true });
    }
  }, 420_000);
});
