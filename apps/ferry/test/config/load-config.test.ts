import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFerryConfig, parseFerryConfig } from '../../src/config/load-config.js';
import { REPO_ROOT } from '../support/start-app.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ferry-config-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('loadFerryConfig', () => {
  it('reads the repository config: example servers, defaults everywhere else, frozen', () => {
    const config = loadFerryConfig({ cwd: REPO_ROOT, env: {} });
    expect(config.path).toBe(join(REPO_ROOT, 'ferry.config.json'));
    expect(config.app.server).toEqual({ host: '127.0.0.1', port: 8787, bodyIdleTimeoutMs: 30_000 });
    expect(config.app.auth).toMatchObject({ mode: 'local', user: 'dev' });
    expect(config.storage.dataDir).toBe(join(REPO_ROOT, '.ferry'));
    expect(Object.keys(config.host.servers)).toContain('report');
    // Relative command lines run next to the config file.
    expect(config.host.servers.report).toMatchObject({ cwd: REPO_ROOT });
    expect(Object.isFrozen(config.app.auth)).toBe(true);
    expect(Object.isFrozen(config.host.servers)).toBe(true);
  });

  it('without a config file: all defaults, no servers', () => {
    const config = loadFerryConfig({ cwd: dir, env: {} });
    expect(config.path).toBeUndefined();
    expect(config.host.servers).toEqual({});
  });

  it('an explicit file that does not exist is an error', () => {
    expect(() => loadFerryConfig({ cwd: dir, env: {}, path: 'missing.json' })).toThrow(/not found/);
  });

  it('environment variables override the file', async () => {
    const path = join(dir, 'ports.json');
    await writeFile(path, JSON.stringify({ server: { port: 9000 }, flags: { max_file_size_mb: 5 } }));
    const config = loadFerryConfig({
      path,
      env: {
        FERRY_PORT: '9100',
        FERRY_AUTH_MODE: 'proxy',
        FERRY_TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16',
        FERRY_PROXY_SECRET: 'proxy-secret-from-env-0123',
        FERRY_PROXY_SECRET_HEADER: 'X-Proxy-Auth',
        FERRY_MAX_FILE_SIZE_MB: '7',
      },
    });
    expect(config.app.server.port).toBe(9100);
    expect(config.app.auth.mode).toBe('proxy');
    expect(config.app.auth.trustedProxies).toEqual(['10.0.0.1', '10.1.0.0/16']);
    expect(config.app.auth).toMatchObject({
      proxySecret: 'proxy-secret-from-env-0123',
      proxySecretHeader: 'x-proxy-auth',
    });
    expect(config.storage.max_file_size_mb).toBe(7);
  });

  it('reports every problem of every section at once, naming each', () => {
    let message = '';
    try {
      parseFerryConfig(
        {
          server: { port: 'eighty', hots: 'x' },
          auth: { mode: 'ldap', trustedProxies: ['not-an-ip', '10.0.0.0/99'] },
          flags: { max_file_size_mb: -1 },
          servers: { 'Bad Name': { transport: 'stdio', command: 'x' }, ok: { transport: 'carrier-pigeon' } },
        },
        { env: {} },
      );
    } catch (error) {
      message = (error as Error).message;
    }
    for (const expected of [
      'server.port',
      'server.hots: unknown setting',
      'auth.mode',
      'auth.trustedProxies.0',
      'auth.trustedProxies.1',
      'max_file_size_mb',
      'servers.Bad Name',
      'servers.ok.transport',
    ]) {
      expect(message).toContain(expected);
    }
  });

  it('server.bodyIdleTimeoutMs: FERRY_BODY_IDLE_TIMEOUT_MS sets it; it must be a whole number of ms > 0', () => {
    const config = parseFerryConfig({}, { env: { FERRY_BODY_IDLE_TIMEOUT_MS: '5000' } });
    expect(config.app.server.bodyIdleTimeoutMs).toBe(5000);
    for (const bad of [0, -1, 1.5, 'soon']) {
      expect(() => parseFerryConfig({ server: { bodyIdleTimeoutMs: bad } }, { env: {} })).toThrow(
        /server\.bodyIdleTimeoutMs/,
      );
    }
    expect(() => parseFerryConfig({}, { env: { FERRY_BODY_IDLE_TIMEOUT_MS: 'never' } })).toThrow(
      /FERRY_BODY_IDLE_TIMEOUT_MS/,
    );
  });

  it('a bad FERRY_PORT names the variable', () => {
    expect(() => parseFerryConfig({}, { env: { FERRY_PORT: 'abc' } })).toThrow(/FERRY_PORT/);
  });

  it('warns about sections nobody reads', () => {
    expect(parseFerryConfig({ llm: {} }, { env: {} }).warnings).toEqual([
      'ferry.config: unknown section "llm" is ignored',
    ]);
  });
});
