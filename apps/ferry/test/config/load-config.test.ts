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
    expect(config.app.server).toEqual({
      host: '127.0.0.1',
      port: 8787,
      bodyIdleTimeoutMs: 30_000,
      shutdownGraceSeconds: 30,
    });
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

  it('calls.maxConcurrentStarts: unset by default (the pool uses the CPU count), a positive integer, else named', () => {
    expect(parseFerryConfig({}, { env: {} }).app.calls.maxConcurrentStarts).toBeUndefined();
    expect(
      parseFerryConfig({ calls: { maxConcurrentStarts: 6 } }, { env: {} }).app.calls.maxConcurrentStarts,
    ).toBe(6);
    expect(() => parseFerryConfig({ calls: { maxConcurrentStarts: 0 } }, { env: {} })).toThrow(
      /calls\.maxConcurrentStarts must be >= 1/,
    );
  });

  it("calls.workspaceDetection: 'watch' by default, 'walk' on request, anything else named", () => {
    expect(parseFerryConfig({}, { env: {} }).app.calls.workspaceDetection).toBe('watch');
    const walk = parseFerryConfig({ calls: { workspaceDetection: 'walk' } }, { env: {} });
    expect(walk.app.calls.workspaceDetection).toBe('walk');
    expect(() => parseFerryConfig({ calls: { workspaceDetection: 'poll' } }, { env: {} })).toThrow(
      /calls\.workspaceDetection must be 'watch' or 'walk'/,
    );
  });

  it('a bad FERRY_PORT names the variable', () => {
    expect(() => parseFerryConfig({}, { env: { FERRY_PORT: 'abc' } })).toThrow(/FERRY_PORT/);
  });

  it('an unknown section is an error, with the section it was probably meant to be', () => {
    expect(() => parseFerryConfig({ llm: {} }, { env: {} })).toThrow(/llm: unknown section$/m);
    expect(() => parseFerryConfig({ serverz: {} }, { env: {} })).toThrow(
      /serverz: unknown section \(did you mean "servers"\?\)/,
    );
    expect(parseFerryConfig({ $schema: 'x', servers: {} }, { env: {} }).warnings).toEqual([]);
  });
});

describe('where a problem is written', () => {
  /** The message loadFerryConfig throws for this file text. */
  async function problemOf(text: string): Promise<string> {
    const path = join(dir, 'ferry.config.json');
    await writeFile(path, text);
    try {
      loadFerryConfig({ path, cwd: dir, env: {} });
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  }

  it('a JSON syntax error: file:line:column, the line shown with a caret under the column', async () => {
    const message = await problemOf(
      [
        '{',
        '  "servers": {',
        '    "report": {',
        '      "transport": "stdio"',
        '      "command": "node"',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    );
    expect(message).toBe(
      [
        `ferry.config.json:4:27: invalid JSON: missing ',' after the value of "transport"`,
        '  4 |       "transport": "stdio"',
        '    |                           ^',
      ].join('\n'),
    );
  });

  it.each([
    [
      'a trailing comma',
      '{\n  "servers": {},\n}\n',
      "ferry.config.json:2:16: invalid JSON: trailing comma before '}'",
    ],
    [
      'a comment',
      '{\n  // the servers\n  "servers": {}\n}',
      'ferry.config.json:2:3: invalid JSON: comments are not allowed',
    ],
    [
      'a bare key',
      '{ servers: {} }',
      'ferry.config.json:1:3: invalid JSON: property names must be in double quotes: "servers"',
    ],
    [
      'an unclosed object',
      '{\n  "servers": {\n',
      "ferry.config.json:2:14: invalid JSON: this object is never closed (missing '}')",
    ],
    ['an empty file', '', 'ferry.config.json:1:1: invalid JSON: unexpected end of the file'],
  ])('%s', async (_, text, expected) => {
    expect(await problemOf(text)).toContain(expected);
  });

  it('a BOM is not an error; a secret on the bad line is only shown in that line, never echoed whole', async () => {
    expect(await problemOf('\uFEFF{"servers": 1}')).toMatch(/servers/);
    const message = await problemOf('{"auth": {"proxySecret": "s3cret-s3cret-s3cret"}, "servers": {,}}');
    expect(message.split('\n')[0]).toBe(
      "ferry.config.json:1:63: invalid JSON: expected a property name in double quotes, found ','",
    );
  });

  it('unknown keys at every level: file:line:column, and "did you mean" the setting it is close to', async () => {
    const text = JSON.stringify(
      {
        server: { port: 8787, report: { transport: 'stdio', command: 'node' } },
        sandbox: { mod: 'auto', limits: { memoryByte: 1 } },
        auth: { trustedProxy: ['127.0.0.1'] },
        flags: { max_file_size: 5 },
        storage: { blob: { driver: 'local', rot: '/srv' } },
        servers: {
          report: { transport: 'stdio', command: 'node', fileMod: 'path', timeouts: { timeoutSecond: 3 } },
          remote: { transport: 'http', url: 'http://127.0.0.1:9/mcp', header: {} },
        },
      },
      null,
      2,
    );
    const lines = (await problemOf(text))
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
    const at = (key: string) => {
      const line = text.split('\n').findIndex((l) => l.includes(`"${key}"`));
      return `ferry.config.json:${line + 1}:${(text.split('\n')[line] as string).indexOf(`"${key}"`) + 1}`;
    };
    expect(lines).toEqual([
      `${at('report')}: server.report: unknown setting (MCP servers go under "servers": did you mean "servers"?)`,
      `${at('mod')}: sandbox.mod: unknown setting (did you mean "mode"?)`,
      `${at('memoryByte')}: sandbox.limits.memoryByte: unknown setting (did you mean "memoryBytes"?)`,
      `${at('trustedProxy')}: auth.trustedProxy: unknown setting (did you mean "trustedProxies"?)`,
      `${at('max_file_size')}: flags.max_file_size: unknown setting (did you mean "max_file_size_mb"?)`,
      `${at('rot')}: storage.blob.rot: unknown setting (did you mean "root"?)`,
      `${at('fileMod')}: servers.report.fileMod: not a setting of stdio servers (did you mean "fileMode"?)`,
      `${at('timeoutSecond')}: servers.report.timeouts.timeoutSecond: not a setting of stdio servers (did you mean "timeoutSeconds"?)`,
      `${at('header')}: servers.remote.header: not a setting of http servers (did you mean "headers"?)`,
    ]);
  });

  it('xMcpFileNameParam is a per-server setting; a typo of it gets "did you mean"', async () => {
    const text = JSON.stringify({
      servers: { old: { transport: 'http', url: 'http://127.0.0.1:9/mcp', xMcpFileNameParm: true } },
    });
    expect(await problemOf(text)).toContain(
      'servers.old.xMcpFileNameParm: not a setting of http servers (did you mean "xMcpFileNameParam"?)',
    );
  });

  it('a bad value is named at its key; one set by a variable names the variable', async () => {
    const message = await problemOf('{\n  "server": {\n    "port": "eighty"\n  }\n}');
    expect(message).toMatch(/^ {2}ferry\.config\.json:3:5: server\.port: /m);
    const path = join(dir, 'ferry.config.json');
    expect(() => loadFerryConfig({ path, cwd: dir, env: { FERRY_MAX_FILE_SIZE_MB: 'lots' } })).toThrow(
      /^ {2}FERRY_MAX_FILE_SIZE_MB \(flags\.max_file_size_mb\): expected a number/m,
    );
  });

  it('a PostgreSQL catalog without a token key: the refusal says to set FERRY_TOKEN_SECRET, on every instance', () => {
    expect(() => parseFerryConfig({}, { env: { FERRY_DATABASE_URL: 'postgres://ferry@db/ferry' } })).toThrow(
      /storage\.tokens\.keys: a PostgreSQL catalog .* set FERRY_TOKEN_SECRET to the same random secret .* on every instance/,
    );
  });
});

describe('redis (scale mode)', () => {
  const SECRET = 'a'.repeat(64);
  const scale = {
    FERRY_TOKEN_SECRET: SECRET,
    FERRY_DATABASE_URL: 'postgres://ferry@db/ferry',
    FERRY_S3_BUCKET: 'ferry',
  };

  it('absent by default: the embedded default, no warning', () => {
    const config = parseFerryConfig({}, { env: {} });
    expect(config.app.redis).toBeUndefined();
    expect(config.warnings).toEqual([]);
    // The other app sections keep their defaults (an optional section is not filled with {}).
    expect(parseFerryConfig({}, { env: { FERRY_TOKEN_SECRET: SECRET } }).app.redis).toBeUndefined();
  });

  it('FERRY_REDIS_URL makes the section, prefix and timings defaulted; FERRY_REDIS_PREFIX sets the prefix', () => {
    const config = parseFerryConfig({}, { env: { ...scale, FERRY_REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(config.app.redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      prefix: 'ferry:',
      heartbeatMs: 5000,
      requestTimeoutMs: 10_000,
    });
    expect(config.warnings).toEqual([]);
    expect(Object.isFrozen(config.app.redis)).toBe(true);
    const prefixed = parseFerryConfig(
      { redis: { url: 'redis://file:6379', heartbeatMs: 1000 } },
      {
        env: {
          ...scale,
          FERRY_REDIS_URL: 'rediss://user:pw@cache.internal:6380/2',
          FERRY_REDIS_PREFIX: 'blue:',
        },
      },
    );
    expect(prefixed.app.redis).toEqual({
      url: 'rediss://user:pw@cache.internal:6380/2',
      prefix: 'blue:',
      heartbeatMs: 1000,
      requestTimeoutMs: 10_000,
    });
  });

  it('a bad URL or prefix is named; a prefix without a URL asks for the URL', () => {
    expect(() => parseFerryConfig({}, { env: { ...scale, FERRY_REDIS_URL: 'http://cache:6379' } })).toThrow(
      /redis\.url: redis\.url must be a redis:\/\/ or rediss:\/\/ URL \(FERRY_REDIS_URL\)/,
    );
    expect(() =>
      parseFerryConfig(
        {},
        { env: { ...scale, FERRY_REDIS_URL: 'redis://h', FERRY_REDIS_PREFIX: 'with space' } },
      ),
    ).toThrow(/redis\.prefix: redis\.prefix must be 1 to 64 visible ASCII characters/);
    expect(() => parseFerryConfig({}, { env: { ...scale, FERRY_REDIS_PREFIX: 'blue:' } })).toThrow(
      /redis\.url: .*FERRY_REDIS_URL/,
    );
    expect(() => parseFerryConfig({ redis: { url: 'redis://h', heartbeat: 5 } }, { env: scale })).toThrow(
      /redis\.heartbeat: unknown setting \(did you mean "heartbeatMs"\?\)/,
    );
  });

  it('refuses ephemeral download tokens, naming FERRY_TOKEN_SECRET', () => {
    let message = '';
    try {
      parseFerryConfig({}, { env: { FERRY_REDIS_URL: 'redis://127.0.0.1:6379' } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /redis \(FERRY_REDIS_URL\): instances sharing state through Redis need a token key .* set FERRY_TOKEN_SECRET to the same random secret .* on every instance/,
    );
    // Only that: SQLite and local blobs are not refused.
    expect(message.split('\n')).toHaveLength(2);
  });

  it('warns when combined with SQLite or local blobs: N instances need PostgreSQL and S3', () => {
    const url = { FERRY_REDIS_URL: 'redis://127.0.0.1:6379', FERRY_TOKEN_SECRET: SECRET };
    expect(parseFerryConfig({}, { env: url }).warnings).toEqual([
      'Redis is configured but the catalog is SQLite (set FERRY_DATABASE_URL) and blobs are on local disk (set FERRY_S3_BUCKET): N instances need PostgreSQL and S3, or each sees only its own files',
    ]);
    const [onlyBlobs] = parseFerryConfig(
      {},
      { env: { ...url, FERRY_DATABASE_URL: scale.FERRY_DATABASE_URL } },
    ).warnings;
    expect(onlyBlobs).toMatch(
      /^Redis is configured but blobs are on local disk .*N instances need PostgreSQL and S3/,
    );
    expect(parseFerryConfig({}, { env: { ...url, FERRY_S3_BUCKET: 'ferry' } }).warnings).toEqual([
      expect.stringMatching(
        /^Redis is configured but the catalog is SQLite \(set FERRY_DATABASE_URL\): N instances/,
      ),
    ]);
  });
});
