// startServer: config → storage → host → app → listen, the startup summary, and closing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/server.js';
import { http } from './support/start-app.js';

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
      expect(summary).toContain('sandbox  off/unsandboxed');
      expect(summary).toContain('LLM      not configured');
      expect(summary).toContain('auth     local (single user "dev")');
      expect(summary).toContain('servers  (none)');
      expect((await http(server.url, '/api/me')).json()).toMatchObject({ username: 'dev' });
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

  it('refuses a server that requires the sandbox (there is none yet)', async () => {
    const path = join(dir, 'strict.json');
    await writeFile(
      path,
      JSON.stringify({ servers: { strict: { transport: 'stdio', command: 'node', sandbox: 'required' } } }),
    );
    await expect(startServer({ cwd: dir, env: {}, configPath: path, port: 0 })).rejects.toThrow(
      /require the sandbox.*strict/,
    );
  });

  it('refuses an invalid config before opening anything', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ auth: { mode: 'ldap' } }));
    await expect(startServer({ cwd: dir, env: {}, configPath: path, port: 0 })).rejects.toThrow(/auth\.mode/);
  });
});
