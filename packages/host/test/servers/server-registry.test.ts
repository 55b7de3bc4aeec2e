import { FerryError } from '@ferry/contract';
import { describe, expect, it } from 'vitest';
import type { ServerConfigInput } from '../../src/servers/server-config.js';
import {
  createServerRegistry,
  loadServerRegistry,
  type ServerConfigProblem,
} from '../../src/servers/server-registry.js';

function problemsOf(servers: unknown): ServerConfigProblem[] {
  try {
    createServerRegistry(servers as Record<string, ServerConfigInput>);
  } catch (error) {
    expect(error).toBeInstanceOf(FerryError);
    expect((error as FerryError).code).toBe('E_INVALID_INPUT');
    return (error as FerryError).details.problems as ServerConfigProblem[];
  }
  throw new Error('expected the config to be rejected');
}

describe('server registry: defaults', () => {
  it('fills the defaults of a stdio server', () => {
    const registry = createServerRegistry({ report: { transport: 'stdio', command: 'node' } });
    expect(registry.get('report')).toEqual({
      name: 'report',
      transport: 'stdio',
      command: 'node',
      args: [],
      env: {},
      fileMode: 'path',
      sandbox: 'auto',
      network: false,
      timeouts: { noticeSeconds: [15, 20, 25], timeoutSeconds: 30, hardCapSeconds: 600 },
      idleSeconds: 600,
      start: 'call',
      enabled: true,
      protocol: 'auto',
      fileProvider: { enabled: false, compat: false },
      xMcpFileNameParam: false,
    });
  });

  it('start: "session" or "call" (the default); anything else is refused naming the field', () => {
    const registry = createServerRegistry({
      early: { transport: 'stdio', command: 'node', start: 'session' },
      remote: { transport: 'http', url: 'https://tools.example.com/mcp', start: 'session' },
    });
    expect(registry.get('early').start).toBe('session');
    expect(registry.get('remote').start).toBe('session');
    expect(() =>
      createServerRegistry({ x: { transport: 'stdio', command: 'node', start: 'login' as never } }),
    ).toThrow(/start/);
  });

  it('xMcpFileNameParam: name= in x-mcp-file data URIs, for servers of the earlier SEP-2356 draft', () => {
    const registry = createServerRegistry({
      old: { transport: 'http', url: 'https://tools.example.com/mcp', xMcpFileNameParam: true },
    });
    expect(registry.get('old')).toMatchObject({ xMcpFileNameParam: true });
    expect(() =>
      createServerRegistry({ old: { transport: 'stdio', command: 'x', xMcpFileNameParam: 'yes' as never } }),
    ).toThrow(/xMcpFileNameParam/);
  });

  it('defaults remote servers to the url file mode, with no process settings', () => {
    const registry = createServerRegistry({
      api: { transport: 'http', url: 'https://tools.example.com/mcp', headers: { 'X-User': '{{user}}' } },
      legacy: { transport: 'sse', url: 'http://127.0.0.1:3001/sse' },
    });
    expect(registry.get('api')).toMatchObject({ fileMode: 'url', headers: { 'X-User': '{{user}}' } });
    expect(registry.get('legacy')).toMatchObject({ transport: 'sse', fileMode: 'url', headers: {} });
    expect(registry.get('api')).not.toHaveProperty('sandbox');
  });

  it('scales the spec notice schedule (15/20/25 of 30 s) to a shorter timeout', () => {
    const registry = createServerRegistry({
      fast: { transport: 'stdio', command: 'node', timeouts: { timeoutSeconds: 3, hardCapSeconds: 10 } },
    });
    expect(registry.get('fast').timeouts).toEqual({
      noticeSeconds: [1.5, 2, 2.5],
      timeoutSeconds: 3,
      hardCapSeconds: 10,
    });
  });

  it('lists every server in config order, disabled ones included, and freezes them deeply', () => {
    const registry = createServerRegistry({
      b: { transport: 'stdio', command: 'node', env: { A: '1' } },
      a: { transport: 'http', url: 'http://localhost/mcp', enabled: false },
    });
    expect(registry.list().map((s) => [s.name, s.enabled])).toEqual([
      ['b', true],
      ['a', false],
    ]);
    const b = registry.get('b');
    expect(Object.isFrozen(registry.list())).toBe(true);
    expect(Object.isFrozen(b)).toBe(true);
    expect(b.transport === 'stdio' && Object.isFrozen(b.env)).toBe(true);
    expect(Object.isFrozen(b.timeouts.noticeSeconds)).toBe(true);
  });

  it('loads the servers section of a whole config object and ignores the rest', () => {
    const registry = loadServerRegistry({
      storage: { dataDir: './x' },
      servers: { echo: { transport: 'stdio', command: 'node' } },
    });
    expect(registry.list().map((s) => s.name)).toEqual(['echo']);
    expect(loadServerRegistry({}).list()).toEqual([]);
  });

  it('rejects an unknown server name with E_INVALID_INPUT naming it', () => {
    const registry = createServerRegistry({});
    expect(registry.has('nope')).toBe(false);
    expect(() => registry.get('nope')).toThrowError(/Unknown MCP server "nope"/);
    try {
      registry.get('nope');
    } catch (error) {
      expect(error).toMatchObject({ code: 'E_INVALID_INPUT', details: { server: 'nope' } });
    }
  });
});

describe('server registry: validation errors name the server and the field', () => {
  it('rejects bad names', () => {
    expect(problemsOf({ 'My Server': { transport: 'stdio', command: 'x' } })).toEqual([
      expect.objectContaining({ server: 'My Server', field: '(name)' }),
    ]);
    expect(problemsOf({ _x: { transport: 'stdio', command: 'x' } })[0]?.field).toBe('(name)');
    expect(problemsOf({ ['a'.repeat(64)]: { transport: 'stdio', command: 'x' } })[0]?.field).toBe('(name)');
  });

  it('requires a known transport', () => {
    expect(problemsOf({ s: { command: 'x' } })).toEqual([
      { server: 's', field: 'transport', message: 'transport must be one of "stdio", "http", "sse"' },
    ]);
    expect(problemsOf({ s: { transport: 'websocket', url: 'ws://x' } })[0]?.field).toBe('transport');
  });

  it('requires the command of a stdio server and the URL of a remote one', () => {
    expect(problemsOf({ s: { transport: 'stdio' } })).toEqual([
      expect.objectContaining({ field: 'command' }),
    ]);
    expect(problemsOf({ h: { transport: 'http' } })).toEqual([expect.objectContaining({ field: 'url' })]);
    expect(problemsOf({ h: { transport: 'sse', url: 'ftp://example.com/x' } })).toEqual([
      { server: 'h', field: 'url', message: 'url must be an http(s) URL' },
    ]);
  });

  it('rejects settings that do not belong to the transport, one problem per key', () => {
    expect(
      problemsOf({ h: { transport: 'http', url: 'http://x/mcp', command: 'node', sandbox: 'required' } }),
    ).toEqual([
      { server: 'h', field: 'command', message: 'not a setting of http servers' },
      { server: 'h', field: 'sandbox', message: 'not a setting of http servers' },
    ]);
    expect(problemsOf({ s: { transport: 'stdio', command: 'x', headers: {} } })).toEqual([
      { server: 's', field: 'headers', message: 'not a setting of stdio servers' },
    ]);
    expect(problemsOf({ s: { transport: 'stdio', command: 'x', idleSecond: 5 } })[0]?.field).toBe(
      'idleSecond',
    );
  });

  it('allows {{user}} and the file-provider placeholders, no other', () => {
    expect(
      problemsOf({ s: { transport: 'stdio', command: 'x', env: { HOME: '/home/{{username}}' } } }),
    ).toEqual([
      {
        server: 's',
        field: 'env.HOME',
        message:
          'an env value: the placeholders allowed are {{user}}, {{fileProviderUrl}} and {{fileProviderToken}}',
      },
    ]);
    expect(
      problemsOf({ s: { transport: 'stdio', command: 'x', args: ['--root', '{{ user }}'] } })[0]?.field,
    ).toBe('args.1');
    expect(() =>
      createServerRegistry({ s: { transport: 'stdio', command: 'x', args: ['/tmp/{{user}}/{{user}}'] } }),
    ).not.toThrow();
  });

  it('checks env names and header names and values', () => {
    expect(problemsOf({ s: { transport: 'stdio', command: 'x', env: { 'BAD-NAME': '1' } } })[0]?.field).toBe(
      'env.BAD-NAME',
    );
    expect(
      problemsOf({ h: { transport: 'http', url: 'http://x/mcp', headers: { 'X-User': 'a\r\nX-Admin: 1' } } }),
    ).toEqual([{ server: 'h', field: 'headers.X-User', message: 'header values must be one line' }]);
    expect(
      problemsOf({ h: { transport: 'http', url: 'http://x/mcp', headers: { 'X User': 'a' } } }),
    ).toHaveLength(1);
  });

  it('checks the timeouts against each other', () => {
    expect(
      problemsOf({
        s: {
          transport: 'stdio',
          command: 'x',
          timeouts: { noticeSeconds: [10, 5, 40], timeoutSeconds: 30, hardCapSeconds: 20 },
        },
      }),
    ).toEqual([
      { server: 's', field: 'timeouts.noticeSeconds.1', message: 'notice times must increase' },
      {
        server: 's',
        field: 'timeouts.noticeSeconds.2',
        message: 'a notice at 40 s would come after the timeout (30 s)',
      },
      {
        server: 's',
        field: 'timeouts.hardCapSeconds',
        message: 'hardCapSeconds (20) must not be below timeoutSeconds (30)',
      },
    ]);
    expect(problemsOf({ s: { transport: 'stdio', command: 'x', idleSeconds: 0 } })).toEqual([
      { server: 's', field: 'idleSeconds', message: 'idleSeconds must be greater than 0' },
    ]);
  });

  it('reports every problem of every server in one error message', () => {
    const bad = {
      one: { transport: 'stdio', command: '', fileMode: 'inline' },
      two: { transport: 'http', url: 'not a url' },
      three: 'node server.js',
    };
    expect(() => createServerRegistry(bad as never)).toThrowError(
      new RegExp(
        [
          'Invalid server configuration:',
          '  servers\\.one\\.command: command must not be empty',
          '  servers\\.one\\.fileMode: .+',
          '  servers\\.two\\.url: url must be an http\\(s\\) URL',
          '  servers\\.three: a server must be an object',
        ].join('\n'),
      ),
    );
  });

  it('rejects a servers section or config that is not an object', () => {
    expect(() => loadServerRegistry({ servers: [] })).toThrowError(/servers: servers must be an object/);
    expect(() => loadServerRegistry('servers')).toThrowError(/the config must be an object/);
  });
});
