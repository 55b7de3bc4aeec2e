// startServer: config → storage → host → app → listen, the startup summary, and closing.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readlink, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleScript } from '@ferry/test-helpers/example-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/server.js';
import { http, REPO_ROOT } from './support/start-app.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-server-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('startServer', () => {
  it('starts with nothing configured, prints URL and modes, and closes', async () => {
    const server = await startServer({ cwd: dir, env: {}, port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const summary = server.summary.join('\n');
      expect(summary).toContain(`Ferry is listening on ${server.url}`);
      expect(summary).toContain('storage  local disk (.ferry/blobs)');
      expect(summary).toContain('catalog  SQLite (.ferry/catalog.db)');
      expect(summary).toMatch(/sandbox {2}auto: sandboxed \(bubblewrap \d/);
      expect(summary).toContain('LLM      not configured');
      expect(summary).toContain('auth     local (single user "dev")');
      expect(summary).toContain('servers  (none)');
      expect((await http(server.url, '/api/me')).json()).toMatchObject({ username: 'dev' });
      const status = (await http(server.url, '/api/status')).json<{
        sandbox: { runsAs?: { uid: number }; sees?: { root: string[]; uid: number } };
      }>();
      expect(status).toMatchObject({
        username: 'dev',
        sandbox: {
          mode: 'auto',
          effectiveMode: 'sandboxed',
          available: true,
          network: { available: true, helper: 'slirp4netns' },
        },
        llm: 'not configured',
        warnings: [],
      });
      // What the probe's tool saw, as the API reports it: the allow-list, never root.
      expect(status.sandbox.sees?.root).toEqual(expect.arrayContaining(['usr', 'etc', 'tmp', 'proc', 'dev']));
      expect(status.sandbox.sees?.root).not.toContain('root');
      expect(status.sandbox.sees?.uid).toBe(status.sandbox.runsAs?.uid);
      if (process.getuid?.() === 0) expect(status.sandbox.runsAs).toMatchObject({ how: 'setpriv' });
      expect(summary).toMatch(/tools run as \S+ \(uid [1-9]\d*/);
      expect((await http(server.url, '/')).text).toContain('/api/openapi.json');
    } finally {
      await server.close();
    }
    await expect(http(server.url, '/api/me')).rejects.toThrow();
  });

  it('says clearly when the port is taken', async () => {
    const first = await startServer({ cwd: dir, env: {}, port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      await expect(
        startServer({ cwd: dir, env: { FERRY_DATA_DIR: join(dir, 'other') }, port }),
      ).rejects.toThrow(new RegExp(`Port ${port} .* is in use`));
    } finally {
      await first.close();
    }
  });

  it('refuses an invalid config before opening anything', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ auth: { mode: 'ldap' } }));
    await expect(startServer({ cwd: dir, env: {}, configPath: path, port: 0 })).rejects.toThrow(/auth\.mode/);
  });

  it('refuses proxy mode without a shared secret, naming the setting and the variable, before opening anything', async () => {
    const cwd = await mkdtemp(join(dir, 'proxy-'));
    const path = join(cwd, 'ferry.config.json');
    await writeFile(path, JSON.stringify({ auth: { mode: 'proxy' } }));
    const started = startServer({ cwd, env: {}, configPath: path, port: 0 });
    await expect(started).rejects.toThrow(/auth\.proxySecret: .*FERRY_PROXY_SECRET/);
    expect(existsSync(join(cwd, '.ferry'))).toBe(false);
    // FERRY_PROXY_SECRET alone is enough.
    const server = await startServer({
      cwd,
      env: { FERRY_PROXY_SECRET: 'a-proxy-secret-from-the-environment' },
      configPath: path,
      port: 0,
    });
    try {
      const me = await http(server.url, '/api/me', {
        headers: {
          'x-forwarded-user': 'erin',
          'x-ferry-proxy-secret': 'a-proxy-secret-from-the-environment',
        },
      });
      expect(me.json()).toMatchObject({ username: 'erin', authMode: 'proxy' });
      expect(server.summary.join('\n')).not.toContain('a-proxy-secret-from-the-environment');
    } finally {
      await server.close();
    }
  });
});

// Data directories outside /tmp: the sandbox's /tmp is private anyway, so only a directory
// elsewhere shows that Ferry hides its data directory on purpose.
describe('the sandbox as startServer wires it', () => {
  const ATTACK = {
    transport: 'stdio',
    command: 'node',
    args: [exampleScript('attack')],
    cwd: REPO_ROOT,
  };
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp('/var/tmp/ferry-server-sandbox-');
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  async function start(name: string, sandbox: Record<string, unknown>, warnings: string[] = []) {
    const cwd = join(base, name);
    await mkdir(cwd);
    const path = join(cwd, 'ferry.config.json');
    await writeFile(path, JSON.stringify({ sandbox, servers: { attack: ATTACK } }));
    return startServer({
      cwd,
      env: {},
      configPath: path,
      port: 0,
      onServerStderr: () => {},
      onSandboxWarning: (warning) => warnings.push(warning.message),
    });
  }

  // Unsandboxed tools share the host's /tmp: those tests use a user no other test file does.
  const UNSANDBOXED_USER = `unsandboxed-${process.pid}`;

  async function call(server: RunningServer, tool: string, args: Record<string, unknown>, username = 'dev') {
    const owner = await server.storage.files.ensureUser(username);
    return server.host.callTool({
      user: { owner, username },
      server: 'attack',
      tool,
      arguments: args,
    });
  }

  it('auto with bubblewrap: local servers run sandboxed and cannot see the data directory or config', async () => {
    const warnings: string[] = [];
    const server = await start('auto', {}, warnings);
    try {
      const dataDir = join(base, 'auto', '.ferry');
      expect(existsSync(join(dataDir, 'catalog.db'))).toBe(true);
      // Not on the allow-list: it does not exist inside at all.
      const listed = await call(server, 'fs_op', { op: 'list', path: dataDir });
      expect(listed.forModel.results).toMatchObject({ op: 'list', ok: false, error: 'ENOENT' });
      const config = await call(server, 'fs_op', {
        op: 'read',
        path: join(base, 'auto', 'ferry.config.json'),
      });
      expect(config.forModel.results).toMatchObject({ op: 'read', ok: false });
      const inspected = await call(server, 'inspect', {});
      expect(inspected.forModel.results).toMatchObject({ cwd: REPO_ROOT, env: { HOME: '/tmp/dev' } });
      expect(warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('required without bubblewrap: Ferry starts, says so, and every local server fails with E_SANDBOX_UNAVAILABLE', async () => {
    const server = await start('required', { mode: 'required', bwrapPath: '/nonexistent/bwrap' });
    try {
      expect(server.summary.join('\n')).toMatch(
        /sandbox {2}required: UNAVAILABLE, local servers are refused/,
      );
      const status = (await http(server.url, '/api/status')).json<{ sandbox: Record<string, unknown> }>();
      expect(status.sandbox).toMatchObject({ mode: 'required', effectiveMode: 'refused', available: false });
      const refused = await call(server, 'inspect', {});
      expect(refused.forUi.error?.meta_data).toMatchObject({
        error_code: 'E_SANDBOX_UNAVAILABLE',
        details: { server: 'attack' },
      });
    } finally {
      await server.close();
    }
  });

  it('auto without bubblewrap: servers run unsandboxed, with a warning at startup, in the API and per launch', async () => {
    const warnings: string[] = [];
    const server = await start('fallback', { bwrapPath: '/nonexistent/bwrap' }, warnings);
    try {
      const summary = server.summary.join('\n');
      expect(summary).toMatch(/sandbox {2}auto: UNSANDBOXED/);
      expect(summary).toMatch(/WARNING {2}.*bwrap/);
      const status = (await http(server.url, '/api/status')).json<{ warnings: string[]; sandbox: object }>();
      expect(status.sandbox).toMatchObject({ effectiveMode: 'unsandboxed', warning: expect.any(String) });
      expect(status.warnings.join('\n')).toMatch(/bwrap/);
      const inspected = await call(server, 'inspect', {}, UNSANDBOXED_USER);
      expect(inspected.forModel.results).toMatchObject({ cwd: REPO_ROOT });
      // Unsandboxed, the tool still finds its workspace at /tmp/{user} (v2.1 §5.1): a link to it.
      const wrote = await call(
        server,
        'write_workspace',
        { name: 'stats.json', content: '{"n":1}' },
        UNSANDBOXED_USER,
      );
      expect(wrote.status).toBe('finished');
      expect(await readlink(`/tmp/${UNSANDBOXED_USER}`)).toBe(
        join(base, 'fallback', '.ferry', 'workspaces', UNSANDBOXED_USER),
      );
      expect(wrote.forUi.files.map((file) => file.name)).toContain('stats.json');
      expect(warnings).toHaveLength(1);
    } finally {
      await server.close();
      await rm(`/tmp/${UNSANDBOXED_USER}`, { force: true });
    }
  });

  it('a tool with network: true cannot reach Ferry’s own API (the forged X-Forwarded-User of the attack run), nor PostgreSQL or Redis', async () => {
    const cwd = join(base, 'networked');
    await mkdir(cwd);
    const path = join(cwd, 'ferry.config.json');
    await writeFile(
      path,
      JSON.stringify({
        // Listening on every address, so the host's own address leads to it too.
        server: { host: '0.0.0.0' },
        auth: { mode: 'proxy', proxySecret: 'a-proxy-secret-for-this-test' },
        servers: { attack: { ...ATTACK, network: true } },
      }),
    );
    const server = await startServer({ cwd, env: {}, configPath: path, port: 0, onServerStderr: () => {} });
    try {
      const port = Number(new URL(server.url).port);
      // The host reaches Ferry there itself.
      const asProxy = { 'x-forwarded-user': 'dev', 'x-ferry-proxy-secret': 'a-proxy-secret-for-this-test' };
      expect((await http(`http://127.0.0.1:${port}`, '/api/status', { headers: asProxy })).status).toBe(200);
      const external = Object.values(networkInterfaces())
        .flat()
        .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
      expect(external).toBeDefined();
      for (const [host, target] of [
        ['127.0.0.1', port],
        [external as string, port],
        ['10.113.0.2', port],
        ['127.0.0.1', 5432],
        ['127.0.0.1', 6379],
        [external as string, 5432],
        [external as string, 6379],
      ] as const) {
        const tried = await call(server, 'net_connect', { host, port: target });
        expect(tried.forModel.results, `${host}:${target}`).toMatchObject({ ok: false });
      }
    } finally {
      await server.close();
    }
  });

  it('calls.maxResultBytes sets the result cap: a bigger result fails its call naming the limit', async () => {
    const cwd = join(base, 'result-cap');
    await mkdir(cwd);
    const path = join(cwd, 'ferry.config.json');
    const flood = {
      ...ATTACK,
      args: [exampleScript('flood')],
    };
    await writeFile(path, JSON.stringify({ calls: { maxResultBytes: 1048576 }, servers: { attack: flood } }));
    const server = await startServer({ cwd, env: {}, configPath: path, port: 0, onServerStderr: () => {} });
    try {
      const big = await call(server, 'big_text', { mib: 2 });
      expect(big.forUi.error?.meta_data).toMatchObject({
        error_code: 'E_RESULT_TOO_LARGE',
        details: { limit_bytes: 1048576 },
      });
      expect(big.forModel.error?.message).toMatch(/over the 1 MiB limit \(maxResultBytes\)/);
    } finally {
      await server.close();
    }
  });

  it('a server’s own sandbox: "off" is not honoured unless sandbox.allowServerOff says so; both are named at startup', async () => {
    const cwd = join(base, 'server-off');
    await mkdir(cwd);
    const path = join(cwd, 'ferry.config.json');
    const servers = {
      attack: { ...ATTACK, sandbox: 'off' },
      missing: { transport: 'stdio', command: 'no-such-command-ferry', args: [] },
    };
    await writeFile(path, JSON.stringify({ servers }));
    const server = await startServer({ cwd, env: {}, configPath: path, port: 0, onServerStderr: () => {} });
    try {
      const status = (await http(server.url, '/api/status')).json<{ warnings: string[] }>();
      expect(status.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /"attack" asks for sandbox: "off", which sandbox.allowServerOff does not allow: it runs sandboxed/,
          ),
          expect.stringMatching(
            /"missing" cannot start: command "no-such-command-ferry" was not found in PATH/,
          ),
        ]),
      );
      expect(server.summary.join('\n')).toMatch(/WARNING {2}MCP server "missing" cannot start/);
      const inspected = await call(server, 'inspect', {});
      expect(inspected.forModel.results).toMatchObject({ env: { HOME: '/tmp/dev' } });
      expect((inspected.forModel.results as { uid: number }).uid).not.toBe(0);
    } finally {
      await server.close();
    }
    await writeFile(
      path,
      JSON.stringify({ sandbox: { allowServerOff: ['attack'] }, servers: { attack: servers.attack } }),
    );
    const allowed = await startServer({
      cwd,
      env: {},
      configPath: path,
      port: 0,
      onServerStderr: () => {},
      onSandboxWarning: () => {},
    });
    try {
      const status = (await http(allowed.url, '/api/status')).json<{ warnings: string[] }>();
      expect(status.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/"attack" runs WITHOUT the sandbox \(its own sandbox: "off"\)/),
        ]),
      );
      const inspected = await call(allowed, 'inspect', {}, UNSANDBOXED_USER);
      expect((inspected.forModel.results as { uid: number }).uid).toBe(process.getuid?.());
    } finally {
      await allowed.close();
      await rm(`/tmp/${UNSANDBOXED_USER}`, { force: true });
    }
  });
});
