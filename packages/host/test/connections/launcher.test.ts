import { describe, expect, it } from 'vitest';
import { INHERITED_ENV_VARS, inheritedEnv, unsandboxedLauncher } from '../../src/connections/launcher.js';
import type { StdioServerConfig } from '../../src/servers/server-config.js';
import { createServerRegistry } from '../../src/servers/server-registry.js';

function stdioServer(input: object): StdioServerConfig {
  return createServerRegistry({ s: { transport: 'stdio', command: 'node', ...input } }).get(
    's',
  ) as StdioServerConfig;
}

describe('unsandboxedLauncher', () => {
  it('passes only the allowlist plus the configured env, with {{user}} filled', () => {
    const spec = unsandboxedLauncher(
      stdioServer({ args: ['--root', '/data/{{user}}'], env: { FERRY_USER: '{{user}}', PATH: '/opt/bin' } }),
      'alice',
    );
    expect(spec.command).toBe('node');
    expect(spec.args).toEqual(['--root', '/data/alice']);
    expect(spec.env.FERRY_USER).toBe('alice');
    // The configured value wins over the inherited one.
    expect(spec.env.PATH).toBe('/opt/bin');
    for (const name of Object.keys(spec.env)) {
      expect([...INHERITED_ENV_VARS, 'FERRY_USER']).toContain(name);
    }
    expect(spec).not.toHaveProperty('cwd');
  });

  it('refuses an invalid username', () => {
    expect(() => unsandboxedLauncher(stdioServer({}), '../root')).toThrowError(/Invalid username/);
  });

  it('inherits the SDK defaults and the locale, never other variables or shell functions', () => {
    expect(INHERITED_ENV_VARS).toEqual(expect.arrayContaining(['HOME', 'PATH', 'USER', 'LANG']));
    expect(
      inheritedEnv({ PATH: '/bin', LANG: 'C.UTF-8', AWS_SECRET_ACCESS_KEY: 'x', SHELL: '() { :; }' }),
    ).toEqual({ PATH: '/bin', LANG: 'C.UTF-8' });
  });
});
