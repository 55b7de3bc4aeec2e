import { INHERITED_ENV_VARS, LOCAL_SERVER_ENV_DEFAULTS } from '@ferry/sandbox';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { unsandboxedLauncher } from '../../src/connections/launcher.js';
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
      expect([...INHERITED_ENV_VARS, ...Object.keys(LOCAL_SERVER_ENV_DEFAULTS), 'FERRY_USER']).toContain(
        name,
      );
    }
    expect(spec.env.MALLOC_MMAP_THRESHOLD_).toBe('32768');
    expect(spec).not.toHaveProperty('cwd');
  });

  it("lets the configured env replace Ferry's defaults", () => {
    const spec = unsandboxedLauncher(stdioServer({ env: { MALLOC_MMAP_THRESHOLD_: '131072' } }), 'alice');
    expect(spec.env.MALLOC_MMAP_THRESHOLD_).toBe('131072');
  });

  it('refuses an invalid username', () => {
    expect(() => unsandboxedLauncher(stdioServer({}), '../root')).toThrowError(/Invalid username/);
  });

  it('inherits the SDK defaults and the locale', () => {
    expect(INHERITED_ENV_VARS).toEqual(expect.arrayContaining([...DEFAULT_INHERITED_ENV_VARS, 'LANG']));
  });
});
